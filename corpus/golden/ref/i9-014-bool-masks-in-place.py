# aliasfuzz ref: the functional program (no in-place op, no aliasing relied on)
# final inputs (input index: output index): {0: 2}
def program(x: Tensor, b: Tensor) -> Tuple[Tensor, Tensor, Tensor]:
    m = torch.gt(x, 0)
    m0 = m[0:2:1]
    m0_1 = torch.logical_not(m0)
    m_1 = torch.slice_scatter(m, m0_1, 0, 0, 2, 1)
    m1 = m_1[:, 1]
    x1 = x[1]
    m1_1 = torch.logical_and(m1, x1)
    m_2 = torch.select_scatter(m_1, m1_1, 1, 1)
    m2 = m_2.transpose(0, 1)
    m2_1 = torch.logical_or(m2, b)
    m_3 = m2_1.transpose(0, 1)
    m3 = m_3[3]
    b2 = b[2]
    m3_1 = torch.logical_xor(m3, b2)
    m_4 = torch.select_scatter(m_3, m3_1, 0, 3)
    m4 = m_4[:, 0]
    m4_1 = torch.bitwise_and(m4, b2)
    m_5 = torch.select_scatter(m_4, m4_1, 1, 0)
    x_1 = torch.masked_fill(x, m_5, 7)
    return (x_1, m_5, x_1)
