# aliasfuzz ref: the functional program (no in-place op, no aliasing relied on)
# final inputs (input index: output index): {0: 1}
def program(w: Tensor, t: Tensor) -> Tuple[Tensor, Tensor]:
    a = w[0:2:1]
    ts = torch.sum(t)
    c = torch.gt(ts, 0)
    assert bool(c) == True
    w_1 = torch.mul(w, 2)
    a_1 = torch.add(a, 100)
    w_3 = torch.mul(w_1, 3)
    return (a_1, w_3)
