# aliasfuzz ref: the functional program (no in-place op, no aliasing relied on)
# final inputs (input index: output index): {0: 2, 2: 3}
def program(n: Tensor, k: Tensor, d: Tensor) -> Tuple[Tensor, Tensor, Tensor, Tensor]:
    a = n[0]
    a_1 = torch.gcd(a, k)
    n_1 = torch.select_scatter(n, a_1, 0, 0)
    b = n_1[1]
    b_1 = torch.lcm(b, k)
    n_2 = torch.select_scatter(n_1, b_1, 0, 1)
    c = n_2[2]
    c_1 = torch.heaviside(c, k)
    n_3 = torch.select_scatter(n_2, c_1, 0, 2)
    e = d[:, 1:3:1]
    e_1 = torch.float_power(e, 2)
    d_1 = torch.slice_scatter(d, e_1, 1, 1, 3, 1)
    f = d_1[0]
    f_1 = torch.float_power(f, k)
    d_2 = torch.select_scatter(d_1, f_1, 0, 0)
    return (n_3, d_2, n_3, d_2)
