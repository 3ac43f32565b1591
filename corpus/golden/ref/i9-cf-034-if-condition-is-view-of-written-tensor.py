# aliasfuzz ref: the functional program (no in-place op, no aliasing relied on)
# final inputs (input index: output index): {0: 1}
def program(x: Tensor) -> Tuple[Tensor, Tensor]:
    tmp_1 = x[0]
    tmp_2 = torch.add(tmp_1, 1)
    x_1 = torch.select_scatter(x, tmp_2, 0, 0)
    tmp_3 = torch.add(tmp_2, 1)
    x_2 = torch.select_scatter(x_1, tmp_3, 0, 0)
    tmp_4 = torch.add(tmp_3, 1)
    x_3 = torch.select_scatter(x_2, tmp_4, 0, 0)
    tmp_5 = torch.add(tmp_4, 1)
    x_4 = torch.select_scatter(x_3, tmp_5, 0, 0)
    tmp_6 = torch.add(tmp_5, 1)
    x_5 = torch.select_scatter(x_4, tmp_6, 0, 0)
    c_1 = tmp_6[0:1:1]
    assert bool(c_1) == False
    x_6 = torch.sub(x_5, 1)
    return (x_6, x_6)
