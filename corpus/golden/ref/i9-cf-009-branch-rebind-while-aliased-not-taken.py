# aliasfuzz ref: the functional program (no in-place op, no aliasing relied on)
# final inputs (input index: output index): {0: 2}
def program(s: Tensor, v: Tensor, t: Tensor) -> Tuple[Tensor, Tensor, Tensor]:
    ts = torch.sum(t)
    c = torch.gt(ts, 0)
    assert bool(c) == False
    s_1 = s.copy(v)
    a_1 = s_1[0]
    a_2 = torch.mul(a_1, 2)
    s_2 = torch.select_scatter(s_1, a_2, 0, 0)
    return (s_2, a_2, s_2)
