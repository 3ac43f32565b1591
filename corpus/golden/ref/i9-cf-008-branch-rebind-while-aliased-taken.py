# aliasfuzz ref: the functional program (no in-place op, no aliasing relied on)
# final inputs (input index: output index): {0: 2}
def program(s: Tensor, v: Tensor, t: Tensor) -> Tuple[Tensor, Tensor, Tensor]:
    a = s[0]
    ts = torch.sum(t)
    c = torch.gt(ts, 0)
    assert bool(c) == True
    s_1 = torch.add(s, 1)
    a_1 = torch.mul(a, 2)
    s_2 = torch.select_scatter(s, a_1, 0, 0)
    return (s_1, a_1, s_2)
