# aliasfuzz ref: the functional program (no in-place op, no aliasing relied on)
# final inputs (input index: output index): {0: 2, 1: 3}
def program(n: Tensor, x: Tensor, e: Tensor) -> Tuple[Tensor, Tensor, Tensor, Tensor]:
    a = n[0]
    a_1 = torch.pow(a, 2)
    n_1 = torch.select_scatter(n, a_1, 0, 0)
    b = x[1]
    b_1 = torch.pow(b, e)
    x_1 = torch.select_scatter(x, b_1, 0, 1)
    c = n_1[2]
    c_1 = torch.remainder(c, 3)
    n_2 = torch.select_scatter(n_1, c_1, 0, 2)
    d = n_2[:, 3]
    d_1 = torch.fmod(d, -3)
    n_3 = torch.select_scatter(n_2, d_1, 1, 3)
    f = x_1[1:3:1]
    f_1 = torch.fmod(f, 1.5)
    x_2 = torch.slice_scatter(x_1, f_1, 0, 1, 3, 1)
    g = n_3[:, 1]
    g_1 = torch.floor_divide(g, 2)
    n_4 = torch.select_scatter(n_3, g_1, 1, 1)
    h = x_2[2]
    h_1 = torch.remainder(h, e)
    x_3 = torch.select_scatter(x_2, h_1, 0, 2)
    return (n_4, x_3, n_4, x_3)
