# aliasfuzz ref: the functional program (no in-place op, no aliasing relied on)
# final inputs (input index: output index): {0: 2}
def program(x: Tensor) -> Tuple[Tensor, Tensor, Tensor]:
    y = x[0:2:1]
    y_1 = torch.add(y, 1)
    x_1 = torch.slice_scatter(x, y_1, 0, 0, 2, 1)
    x_2 = torch.add(x_1, 1)
    x_3 = torch.mul(x_2, 2)
    y_2 = torch.add(y_1, 1)
    x_4 = torch.slice_scatter(x_1, y_2, 0, 0, 2, 1)
    x_5 = torch.add(x_3, 1)
    x_6 = torch.mul(x_5, 2)
    y_3 = torch.add(y_2, 1)
    x_7 = torch.slice_scatter(x_4, y_3, 0, 0, 2, 1)
    x_8 = torch.add(x_6, 1)
    x_9 = torch.mul(x_8, 2)
    return (y_3, x_9, x_7)
