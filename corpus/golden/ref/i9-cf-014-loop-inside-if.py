# aliasfuzz ref: the functional program (no in-place op, no aliasing relied on)
# final inputs (input index: output index): {0: 1}
def program(x: Tensor, t: Tensor) -> Tuple[Tensor, Tensor]:
    ts = torch.sum(t)
    c = torch.gt(ts, 0)
    assert bool(c) == True
    x0 = x[0]
    x0_1 = torch.add(x0, x0)
    x_1 = torch.select_scatter(x, x0_1, 0, 0)
    tmp_1 = x_1[1]
    tmp_2 = torch.add(tmp_1, x0_1)
    x_2 = torch.select_scatter(x_1, tmp_2, 0, 1)
    tmp_3 = x_2[2]
    x0_2 = x_2[0]
    tmp_4 = torch.add(tmp_3, x0_2)
    x_3 = torch.select_scatter(x_2, tmp_4, 0, 2)
    tmp_5 = x_3[3]
    x0_3 = x_3[0]
    tmp_6 = torch.add(tmp_5, x0_3)
    x_4 = torch.select_scatter(x_3, tmp_6, 0, 3)
    r = torch.mul(x_4, 2)
    return (r, x_4)
