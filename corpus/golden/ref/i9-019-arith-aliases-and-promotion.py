# aliasfuzz ref: the functional program (no in-place op, no aliasing relied on)
# final inputs (input index: output index): {0: 2}
def program(x: Tensor, n: Tensor, d: Tensor) -> Tuple[Tensor, Tensor, Tensor]:
    a = x[0:2:1]
    a_1 = torch.div(a, 4)
    x_1 = torch.slice_scatter(x, a_1, 0, 0, 2, 1)
    b = x_1[:, 1]
    b_1 = torch.div(b, 0.5)
    x_2 = torch.select_scatter(x_1, b_1, 1, 1)
    c = x_2.transpose(0, 1)
    c_1 = torch.mul(c, d)
    c_2 = c.copy(c_1)
    x_3 = c_2.transpose(0, 1)
    e = x_3[2]
    e_1 = torch.sub(e, n)
    x_4 = torch.select_scatter(x_3, e_1, 0, 2)
    r = torch.sum(x_4)
    return (x_4, r, x_4)
