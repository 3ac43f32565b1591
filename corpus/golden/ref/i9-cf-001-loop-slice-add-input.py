# aliasfuzz ref: the functional program (no in-place op, no aliasing relied on)
# final inputs (input index: output index): {0: 1}
def program(x: Tensor, v: Tensor) -> Tuple[Tensor, Tensor]:
    tmp_1 = x[0]
    tmp_2 = torch.add(tmp_1, v)
    x_1 = torch.select_scatter(x, tmp_2, 0, 0)
    tmp_3 = x_1[1]
    tmp_4 = torch.add(tmp_3, v)
    x_2 = torch.select_scatter(x_1, tmp_4, 0, 1)
    tmp_5 = x_2[2]
    tmp_6 = torch.add(tmp_5, v)
    x_3 = torch.select_scatter(x_2, tmp_6, 0, 2)
    tmp_7 = x_3[3]
    tmp_8 = torch.add(tmp_7, v)
    x_4 = torch.select_scatter(x_3, tmp_8, 0, 3)
    r = torch.mul(x_4, 2)
    return (r, x_4)
