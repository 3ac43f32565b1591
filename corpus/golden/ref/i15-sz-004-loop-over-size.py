# aliasfuzz ref: the functional program (no in-place op, no aliasing relied on)
# final inputs (input index: output index): {0: 1}
def program(x: Tensor, v: Tensor) -> Tuple[Tensor, Tensor]:
    row = x[0]
    row_1 = torch.add(row, v)
    x_1 = torch.select_scatter(x, row_1, 0, 0)
    tail = x_1[0:, 0]
    tail_1 = torch.mul(tail, 2)
    x_2 = torch.select_scatter(x_1, tail_1, 1, 0)
    row_2 = x_2[1]
    row_3 = torch.add(row_2, v)
    x_3 = torch.select_scatter(x_2, row_3, 0, 1)
    tail_2 = x_3[1:, 0]
    tail_3 = torch.mul(tail_2, 2)
    tmp_1 = x_3[1:4:1]
    tmp_2 = torch.select_scatter(tmp_1, tail_3, 1, 0)
    x_4 = torch.slice_scatter(x_3, tmp_2, 0, 1, 4, 1)
    row_4 = x_4[2]
    row_5 = torch.add(row_4, v)
    x_5 = torch.select_scatter(x_4, row_5, 0, 2)
    tail_4 = x_5[2:, 0]
    tail_5 = torch.mul(tail_4, 2)
    tmp_3 = x_5[2:4:1]
    tmp_4 = torch.select_scatter(tmp_3, tail_5, 1, 0)
    x_6 = torch.slice_scatter(x_5, tmp_4, 0, 2, 4, 1)
    row_6 = x_6[3]
    row_7 = torch.add(row_6, v)
    x_7 = torch.select_scatter(x_6, row_7, 0, 3)
    tail_6 = x_7[3:, 0]
    tail_7 = torch.mul(tail_6, 2)
    tmp_5 = x_7[3:4:1]
    tmp_6 = torch.select_scatter(tmp_5, tail_7, 1, 0)
    x_8 = torch.slice_scatter(x_7, tmp_6, 0, 3, 4, 1)
    r = torch.mul(x_8, 1)
    return (r, x_8)
