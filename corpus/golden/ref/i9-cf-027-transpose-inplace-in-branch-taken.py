# aliasfuzz ref: the functional program (no in-place op, no aliasing relied on)
# final inputs (input index: output index): {0: 2}
def program(x: Tensor, t: Tensor) -> Tuple[Tensor, Tensor, Tensor]:
    ts = torch.sum(t)
    c = torch.gt(ts, 0)
    assert bool(c) == True
    x_1 = x.transpose(0, 1)
    tmp_1 = x_1[0]
    tmp_2 = torch.add(tmp_1, 1)
    x_2 = torch.select_scatter(x_1, tmp_2, 0, 0)
    y_1 = x_2.transpose(0, 1)
    r = torch.mul(y_1, 2)
    return (x_2, r, x_2)
