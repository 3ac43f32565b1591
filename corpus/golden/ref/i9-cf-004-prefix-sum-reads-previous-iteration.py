# aliasfuzz ref: the functional program (no in-place op, no aliasing relied on)
# final inputs (input index: output index): {0: 1}
def program(x: Tensor) -> Tuple[Tensor, Tensor]:
    y = x[1:5:1]
    src = x[0]
    dst = y[0]
    dst_1 = torch.add(dst, src)
    y_1 = torch.select_scatter(y, dst_1, 0, 0)
    x_1 = torch.slice_scatter(x, y_1, 0, 1, 5, 1)
    src_1 = x_1[1]
    dst_2 = y_1[1]
    dst_3 = torch.add(dst_2, src_1)
    y_2 = torch.select_scatter(y_1, dst_3, 0, 1)
    x_2 = torch.slice_scatter(x_1, y_2, 0, 1, 5, 1)
    src_2 = x_2[2]
    dst_4 = y_2[2]
    dst_5 = torch.add(dst_4, src_2)
    y_3 = torch.select_scatter(y_2, dst_5, 0, 2)
    x_3 = torch.slice_scatter(x_2, y_3, 0, 1, 5, 1)
    src_3 = x_3[3]
    dst_6 = y_3[3]
    dst_7 = torch.add(dst_6, src_3)
    y_4 = torch.select_scatter(y_3, dst_7, 0, 3)
    x_4 = torch.slice_scatter(x_3, y_4, 0, 1, 5, 1)
    r = torch.mul(x_4, 2)
    return (r, x_4)
