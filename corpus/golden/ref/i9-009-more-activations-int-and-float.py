# aliasfuzz ref: the functional program (no in-place op, no aliasing relied on)
# final inputs (input index: output index): {0: 3, 1: 4}
def program(x: Tensor, n: Tensor) -> Tuple[Tensor, Tensor, Tensor, Tensor, Tensor]:
    a = x[0]
    a_1 = a.silu()
    x_1 = torch.select_scatter(x, a_1, 0, 0)
    b = x_1[1]
    b_1 = b.mish()
    x_2 = torch.select_scatter(x_1, b_1, 0, 1)
    c = x_2[2]
    c_1 = c.gelu()
    x_3 = torch.select_scatter(x_2, c_1, 0, 2)
    d = n.transpose(0, 1)
    d_1 = d.relu6()
    n_1 = d_1.transpose(0, 1)
    e = n_1[1]
    e_1 = e.hardtanh(-2, 2)
    n_2 = torch.select_scatter(n_1, e_1, 0, 1)
    f = x_3[:, 3]
    f_1 = torch.threshold(f, 1, -7)
    x_4 = torch.select_scatter(x_3, f_1, 1, 3)
    g = n_2[2]
    g_1 = torch.threshold(g, 0, 9)
    n_3 = torch.select_scatter(n_2, g_1, 0, 2)
    s = torch.sum(n_3)
    return (x_4, s, n_3, x_4, n_3)
