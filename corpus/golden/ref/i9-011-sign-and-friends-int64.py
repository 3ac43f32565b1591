# aliasfuzz ref: the functional program (no in-place op, no aliasing relied on)
# final inputs (input index: output index): {0: 3, 1: 4}
def program(n: Tensor, x: Tensor) -> Tuple[Tensor, Tensor, Tensor, Tensor, Tensor]:
    a = n[0]
    a_1 = torch.sign(a)
    n_1 = torch.select_scatter(n, a_1, 0, 0)
    b = n_1[1]
    b_1 = torch.square(b)
    n_2 = torch.select_scatter(n_1, b_1, 0, 1)
    c = n_2[:, 2]
    c_1 = torch.neg(c)
    n_3 = torch.select_scatter(n_2, c_1, 1, 2)
    d = n_3.transpose(0, 1)
    d_1 = torch.abs(d)
    n_4 = d_1.transpose(0, 1)
    e = x[3]
    e_1 = torch.sgn(e)
    x_1 = torch.select_scatter(x, e_1, 0, 3)
    m = torch.gt(x_1, 0)
    m0 = m[1]
    m0_1 = torch.sign(m0)
    m_1 = torch.select_scatter(m, m0_1, 0, 1)
    r = torch.where(m_1, x_1, n_4)
    return (n_4, x_1, r, n_4, x_1)
