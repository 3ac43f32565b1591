# aliasfuzz ref: the functional program (no in-place op, no aliasing relied on)
# final inputs (input index: output index): {0: 1}
def program(w: Tensor, t: Tensor) -> Tuple[Tensor, Tensor]:
    ts = torch.sum(t)
    c = torch.gt(ts, 0)
    assert bool(c) == False
    w_1 = torch.add(w, 1)
    a_1 = w_1[0:2:1]
    a_2 = torch.add(a_1, 100)
    w_2 = torch.slice_scatter(w_1, a_2, 0, 0, 2, 1)
    w_3 = torch.mul(w_2, 3)
    a_3 = w_3[0:2:1]
    return (a_3, w_3)
