# aliasfuzz ref: the functional program (no in-place op, no aliasing relied on)
# final inputs (input index: output index): {0: 2}
def program(x: Tensor, t: Tensor) -> Tuple[Tensor, Tensor, Tensor]:
    a = x[:, 0]
    ts = torch.sum(t)
    c = torch.gt(ts, 0)
    assert bool(c) == True
    x_1 = torch.mul(x, 2)
    tmp_1 = x_1[0]
    tmp_2 = torch.add(tmp_1, 1)
    x_2 = torch.select_scatter(x_1, tmp_2, 0, 0)
    a_1 = torch.add(a, 5)
    x_3 = torch.select_scatter(x, a_1, 1, 0)
    return (x_2, a_1, x_3)
