# aliasfuzz ref: the functional program (no in-place op, no aliasing relied on)
# final inputs (input index: output index): {0: 1}
def program(x: Tensor) -> Tuple[Tensor, Tensor]:
    row = x[0]
    s = torch.sum(x)
    c = torch.gt(s, -8)
    assert bool(c) == True
    row_1 = torch.sub(row, 6)
    x_1 = torch.select_scatter(x, row_1, 0, 0)
    row_2 = x_1[1]
    s_1 = torch.sum(x_1)
    c_1 = torch.gt(s_1, -8)
    assert bool(c_1) == False
    row_3 = torch.add(row_2, 2)
    x_2 = torch.select_scatter(x_1, row_3, 0, 1)
    row_4 = x_2[2]
    s_2 = torch.sum(x_2)
    c_2 = torch.gt(s_2, -8)
    assert bool(c_2) == False
    row_5 = torch.add(row_4, 2)
    x_3 = torch.select_scatter(x_2, row_5, 0, 2)
    row_6 = x_3[3]
    s_3 = torch.sum(x_3)
    c_3 = torch.gt(s_3, -8)
    assert bool(c_3) == False
    row_7 = torch.add(row_6, 2)
    x_4 = torch.select_scatter(x_3, row_7, 0, 3)
    return (x_4, x_4)
