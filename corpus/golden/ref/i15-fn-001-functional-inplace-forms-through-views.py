# aliasfuzz ref: the functional program (no in-place op, no aliasing relied on)
# final inputs (input index: output index): {0: 3, 1: 4}
def program(x: Tensor, y: Tensor) -> Tuple[Tensor, Tensor, Tensor, Tensor, Tensor]:
    a = x[1]
    a_1 = torch.relu(a)
    x_1 = torch.select_scatter(x, a_1, 0, 1)
    t = x_1.transpose(0, 1)
    c = t[1:3:1]
    c_1 = c.hardtanh(-1, 2.5)
    t_1 = torch.slice_scatter(t, c_1, 0, 1, 3, 1)
    x_2 = t_1.transpose(0, 1)
    s = y[1:4:1]
    s_1 = s.leaky_relu(0.5)
    y_1 = torch.slice_scatter(y, s_1, 0, 1, 4, 1)
    s_2 = torch.threshold(s_1, 1, 7)
    y_2 = torch.slice_scatter(y_1, s_2, 0, 1, 4, 1)
    a_2 = x_2[1]
    r = torch.mul(a_2, 2)
    u = torch.add(y_2, 1)
    return (r, u, c_1, x_2, y_2)
