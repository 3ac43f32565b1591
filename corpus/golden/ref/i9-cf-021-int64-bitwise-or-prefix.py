# aliasfuzz ref: the functional program (no in-place op, no aliasing relied on)
# final inputs (input index: output index): {0: 1}
def program(x: Tensor) -> Tuple[Tensor, Tensor]:
    y = x[1:4:1]
    src = x[0]
    dst = y[0]
    dst_1 = torch.bitwise_or(dst, src)
    y_1 = torch.select_scatter(y, dst_1, 0, 0)
    x_1 = torch.slice_scatter(x, y_1, 0, 1, 4, 1)
    dst_2 = torch.add(dst_1, 1)
    y_2 = torch.select_scatter(y_1, dst_2, 0, 0)
    x_2 = torch.slice_scatter(x_1, y_2, 0, 1, 4, 1)
    src_1 = x_2[1]
    dst_3 = y_2[1]
    dst_4 = torch.bitwise_or(dst_3, src_1)
    y_3 = torch.select_scatter(y_2, dst_4, 0, 1)
    x_3 = torch.slice_scatter(x_2, y_3, 0, 1, 4, 1)
    dst_5 = torch.add(dst_4, 1)
    y_4 = torch.select_scatter(y_3, dst_5, 0, 1)
    x_4 = torch.slice_scatter(x_3, y_4, 0, 1, 4, 1)
    src_2 = x_4[2]
    dst_6 = y_4[2]
    dst_7 = torch.bitwise_or(dst_6, src_2)
    y_5 = torch.select_scatter(y_4, dst_7, 0, 2)
    x_5 = torch.slice_scatter(x_4, y_5, 0, 1, 4, 1)
    dst_8 = torch.add(dst_7, 1)
    y_6 = torch.select_scatter(y_5, dst_8, 0, 2)
    x_6 = torch.slice_scatter(x_5, y_6, 0, 1, 4, 1)
    return (x_6, x_6)
