# aliasfuzz ref: the functional program (no in-place op, no aliasing relied on)
# final inputs (input index: output index): {0: 2, 1: 3}
def program(x: Tensor, n: Tensor, b: Tensor) -> Tuple[Tensor, Tensor, Tensor, Tensor]:
    a = x[0]
    a_1 = torch.logical_and(a, b)
    a_2 = a.copy(a_1)
    x_1 = torch.select_scatter(x, a_2, 0, 0)
    c = x_1[1:3:1]
    n0 = n[2]
    c_1 = torch.logical_or(c, n0)
    c_2 = c.copy(c_1)
    x_2 = torch.slice_scatter(x_1, c_2, 0, 1, 3, 1)
    d = n.transpose(0, 1)
    xt = x_2.transpose(0, 1)
    d_1 = torch.logical_xor(d, xt)
    d_2 = d.copy(d_1)
    n_1 = d_2.transpose(0, 1)
    return (x_2, n_1, x_2, n_1)
