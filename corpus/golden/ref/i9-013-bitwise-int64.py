# aliasfuzz ref: the functional program (no in-place op, no aliasing relied on)
# final inputs (input index: output index): {0: 2}
def program(n: Tensor, k: Tensor, m: Tensor) -> Tuple[Tensor, Tensor, Tensor]:
    a = n[0]
    a_1 = torch.bitwise_not(a)
    n_1 = torch.select_scatter(n, a_1, 0, 0)
    b = n_1[1]
    b_1 = torch.bitwise_and(b, 6)
    n_2 = torch.select_scatter(n_1, b_1, 0, 1)
    c = n_2.transpose(0, 1)
    c0 = c[:, 2]
    c0_1 = torch.bitwise_or(c0, k)
    c_1 = torch.select_scatter(c, c0_1, 1, 2)
    n_3 = c_1.transpose(0, 1)
    d = n_3[1:3:1]
    d_1 = torch.bitwise_xor(d, m)
    n_4 = torch.slice_scatter(n_3, d_1, 0, 1, 3, 1)
    e = n_4[:, 3]
    e_1 = torch.bitwise_left_shift(e, 2)
    n_5 = torch.select_scatter(n_4, e_1, 1, 3)
    f = n_5[2]
    f_1 = torch.bitwise_right_shift(f, 1)
    n_6 = torch.select_scatter(n_5, f_1, 0, 2)
    s = torch.sum(n_6)
    return (n_6, s, n_6)
