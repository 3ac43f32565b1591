# aliasfuzz ref: the functional program (no in-place op, no aliasing relied on)
# final inputs (input index: output index): {0: 1}
def program(x: Tensor) -> Tuple[Tensor, Tensor]:
    y = x[:0]
    y_1 = torch.mul(y, 2)
    x_1 = torch.slice_scatter(x, y_1, 0, 0, 0, 1)
    tmp_1 = x_1[0]
    tmp_2 = torch.add(tmp_1, 1)
    x_2 = torch.select_scatter(x_1, tmp_2, 0, 0)
    y_2 = x_2[:1]
    y_3 = torch.mul(y_2, 2)
    x_3 = torch.slice_scatter(x_2, y_3, 0, 0, 1, 1)
    tmp_3 = x_3[0]
    tmp_4 = torch.add(tmp_3, 1)
    x_4 = torch.select_scatter(x_3, tmp_4, 0, 0)
    tmp_5 = x_4[1]
    tmp_6 = torch.add(tmp_5, 1)
    x_5 = torch.select_scatter(x_4, tmp_6, 0, 1)
    y_4 = x_5[:2]
    y_5 = torch.mul(y_4, 2)
    x_6 = torch.slice_scatter(x_5, y_5, 0, 0, 2, 1)
    r = torch.mul(x_6, 1)
    return (r, x_6)
