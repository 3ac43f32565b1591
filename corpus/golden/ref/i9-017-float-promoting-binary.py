# aliasfuzz ref: the functional program (no in-place op, no aliasing relied on)
# final inputs (input index: output index): {0: 1}
def program(x: Tensor, y: Tensor, k: Tensor) -> Tuple[Tensor, Tensor]:
    a = x[0]
    a_1 = torch.atan2(a, y)
    x_1 = torch.select_scatter(x, a_1, 0, 0)
    b = x_1[1]
    b_1 = torch.atan2(b, y)
    x_2 = torch.select_scatter(x_1, b_1, 0, 1)
    c = x_2[:, 2]
    c_1 = torch.hypot(c, k)
    x_3 = torch.select_scatter(x_2, c_1, 1, 2)
    d = x_3[3]
    d_1 = torch.copysign(d, -1)
    x_4 = torch.select_scatter(x_3, d_1, 0, 3)
    e = x_4[2]
    e_1 = torch.xlogy(e, 2)
    x_5 = torch.select_scatter(x_4, e_1, 0, 2)
    t = x_5.transpose(0, 1)
    t1 = t[1]
    t1_1 = torch.ldexp(t1, k)
    t_1 = torch.select_scatter(t, t1_1, 0, 1)
    t3 = t_1[:, 3]
    t3_1 = torch.nextafter(t3, y)
    t_2 = torch.select_scatter(t_1, t3_1, 1, 3)
    x_7 = t_2.transpose(0, 1)
    return (x_7, x_7)
