# aliasfuzz ref: the functional program (no in-place op, no aliasing relied on)
# final inputs (input index: output index): {0: 2}
def program(x: Tensor, t: Tensor) -> Tuple[Tensor, Tensor, Tensor]:
    ts = torch.sum(t)
    c = torch.gt(ts, 0)
    assert bool(c) == False
    tmp_1 = x[0]
    tmp_2 = torch.add(tmp_1, 1)
    x_1 = torch.select_scatter(x, tmp_2, 0, 0)
    r = torch.mul(x_1, 2)
    return (x_1, r, x_1)
