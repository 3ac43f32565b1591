# aliasfuzz ref: the functional program (no in-place op, no aliasing relied on)
# final inputs (input index: output index): {0: 5, 2: 6, 3: 7}
def program(d: Tensor, n: Tensor, x: Tensor, b: Tensor) -> Tuple[Tensor, Tensor, Tensor, Tensor, Tensor, Tensor, Tensor, Tensor]:
    d0 = d[0]
    d0_1 = torch.add(d0, n)
    d_1 = torch.select_scatter(d, d0_1, 0, 0)
    t = x.transpose(0, 1)
    t_1 = torch.mul(t, d_1)
    t_2 = t.copy(t_1)
    x_1 = t_2.transpose(0, 1)
    nn = torch.clone(n)
    nn_1 = torch.add(nn, n)
    bb = b[1]
    nn_2 = torch.add(nn_1, bb)
    b0 = b[0]
    b0_1 = torch.logical_or(b0, n)
    b_1 = torch.select_scatter(b, b0_1, 0, 0)
    s = torch.sum(x_1)
    return (d_1, x_1, nn_2, b_1, s, d_1, x_1, b_1)
