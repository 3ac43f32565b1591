# aliasfuzz ref: the functional program (no in-place op, no aliasing relied on)
# final inputs (input index: output index): {0: 2, 1: 3}
def program(x: Tensor, mask: Tensor) -> Tuple[Tensor, Tensor, Tensor, Tensor]:
    row = x[0]
    g = torch.gt(row, 1)
    mask_1 = torch.logical_or(mask, g)
    row_1 = torch.sub(row, 1)
    x_1 = torch.select_scatter(x, row_1, 0, 0)
    row_2 = x_1[1]
    g_1 = torch.gt(row_2, 1)
    mask_2 = torch.logical_or(mask_1, g_1)
    row_3 = torch.sub(row_2, 1)
    x_2 = torch.select_scatter(x_1, row_3, 0, 1)
    row_4 = x_2[2]
    g_2 = torch.gt(row_4, 1)
    mask_3 = torch.logical_or(mask_2, g_2)
    row_5 = torch.sub(row_4, 1)
    x_3 = torch.select_scatter(x_2, row_5, 0, 2)
    row_6 = x_3[3]
    g_3 = torch.gt(row_6, 1)
    mask_4 = torch.logical_or(mask_3, g_3)
    row_7 = torch.sub(row_6, 1)
    x_4 = torch.select_scatter(x_3, row_7, 0, 3)
    x_5 = torch.masked_fill(x_4, mask_4, 0)
    return (mask_4, x_5, x_5, mask_4)
