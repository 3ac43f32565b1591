# aliasfuzz ref: the functional program (no in-place op, no aliasing relied on)
# final inputs (input index: output index): {0: 1, 1: 2, 2: 3}
def program(a: Tensor, b: Tensor, c: Tensor) -> Tuple[Tensor, Tensor, Tensor, Tensor]:
    st = torch.stack([a, b, c], 0)
    m = torch.sum(st)
    a_1 = torch.add(a, m)
    st_1 = torch.stack([a_1, b, c], 0)
    m_1 = torch.sum(st_1)
    b_1 = torch.add(b, m_1)
    st_2 = torch.stack([a_1, b_1, c], 0)
    m_2 = torch.sum(st_2)
    c_1 = torch.add(c, m_2)
    s = torch.stack([a_1, b_1, c_1], 0)
    return (s, a_1, b_1, c_1)
