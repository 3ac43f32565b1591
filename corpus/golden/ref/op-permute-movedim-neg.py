# aliasfuzz ref: the functional program (no in-place op, no aliasing relied on)
# final inputs (input index: output index): {0: 2}
def program(z: Tensor) -> Tuple[Tensor, Tensor, Tensor]:
    p = z.permute([2, 0, 1])
    m = p.movedim(0, 2)
    s = m[:, 1]
    s_1 = torch.neg(s)
    m_1 = torch.select_scatter(m, s_1, 1, 1)
    p_1 = m_1.movedim(2, 0)
    z_1 = p_1.permute([1, 2, 0])
    return (z_1, p_1, z_1)
