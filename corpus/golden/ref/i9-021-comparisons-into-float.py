# aliasfuzz ref: the functional program (no in-place op, no aliasing relied on)
# final inputs (input index: output index): {0: 2, 3: 3}
def program(x: Tensor, n: Tensor, d: Tensor, k: Tensor) -> Tuple[Tensor, Tensor, Tensor, Tensor]:
    a = x[0]
    a_1 = torch.le(a, n)
    a_2 = a.copy(a_1)
    x_1 = torch.select_scatter(x, a_2, 0, 0)
    b = x_1[1]
    b_1 = torch.lt(b, d)
    b_2 = b.copy(b_1)
    x_2 = torch.select_scatter(x_1, b_2, 0, 1)
    c = x_2[:, 2]
    c_1 = torch.gt(c, n)
    c_2 = c.copy(c_1)
    x_3 = torch.select_scatter(x_2, c_2, 1, 2)
    e = x_3[3]
    e_1 = torch.ge(e, d)
    e_2 = e.copy(e_1)
    x_4 = torch.select_scatter(x_3, e_2, 0, 3)
    f = k[0]
    f_1 = torch.lt(f, d)
    f_2 = f.copy(f_1)
    k_1 = torch.select_scatter(k, f_2, 0, 0)
    g = k_1.transpose(0, 1)
    g_1 = torch.le(g, x_4)
    g_2 = g.copy(g_1)
    k_2 = g_2.transpose(0, 1)
    h = x_4[2]
    h_1 = torch.ne(h, d)
    h_2 = h.copy(h_1)
    x_5 = torch.select_scatter(x_4, h_2, 0, 2)
    return (x_5, k_2, x_5, k_2)
