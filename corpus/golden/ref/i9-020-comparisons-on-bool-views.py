# aliasfuzz ref: the functional program (no in-place op, no aliasing relied on)
# final inputs (input index: output index): {}
def program(x: Tensor, b: Tensor) -> Tuple[Tensor, Tensor]:
    m = torch.gt(x, -1)
    a = m[0]
    b0 = b[1]
    a_1 = torch.eq(a, b0)
    m_1 = torch.select_scatter(m, a_1, 0, 0)
    c = m_1[1]
    c_1 = torch.ne(c, b0)
    m_2 = torch.select_scatter(m_1, c_1, 0, 1)
    d = m_2.transpose(0, 1)
    d2 = d[2]
    d2_1 = torch.ge(d2, b0)
    d_1 = torch.select_scatter(d, d2_1, 0, 2)
    m_3 = d_1.transpose(0, 1)
    e = m_3[3]
    x3 = x[3]
    e_1 = torch.gt(e, x3)
    m_4 = torch.select_scatter(m_3, e_1, 0, 3)
    r = torch.where(m_4, x, b)
    return (m_4, r)
