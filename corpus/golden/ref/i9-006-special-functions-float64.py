# aliasfuzz ref: the functional program (no in-place op, no aliasing relied on)
# final inputs (input index: output index): {0: 2}
def program(x: Tensor) -> Tuple[Tensor, Tensor, Tensor]:
    a = x[0]
    a_1 = torch.sigmoid(a)
    x_1 = torch.select_scatter(x, a_1, 0, 0)
    b = x_1[1]
    b_1 = torch.erf(b)
    x_2 = torch.select_scatter(x_1, b_1, 0, 1)
    r = torch.sum(x_2)
    c = x_2[2]
    c_1 = torch.erfc(c)
    x_3 = torch.select_scatter(x_2, c_1, 0, 2)
    d = x_3[:, 1]
    d_1 = torch.div(d, 8)
    x_4 = torch.select_scatter(x_3, d_1, 1, 1)
    d_2 = torch.erfinv(d_1)
    x_5 = torch.select_scatter(x_4, d_2, 1, 1)
    e = x_5[3:5:1]
    e_1 = torch.reciprocal(e)
    x_6 = torch.slice_scatter(x_5, e_1, 0, 3, 5, 1)
    f = x_6[:, 0]
    f_1 = torch.deg2rad(f)
    x_7 = torch.select_scatter(x_6, f_1, 1, 0)
    g = x_7[:, 2]
    g_1 = torch.rad2deg(g)
    x_8 = torch.select_scatter(x_7, g_1, 1, 2)
    return (x_8, r, x_8)
