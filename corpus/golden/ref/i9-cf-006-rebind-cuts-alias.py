# aliasfuzz ref: the functional program (no in-place op, no aliasing relied on)
# final inputs (input index: output index): {0: 2}
def program(x: Tensor) -> Tuple[Tensor, Tensor, Tensor]:
    y = x[0:2:1]
    y_1 = torch.add(y, 1)
    x_1 = torch.slice_scatter(x, y_1, 0, 0, 2, 1)
    x_2 = torch.add(x_1, 1)
    x_3 = torch.mul(x_2, 2)
    return (y_1, x_3, x_1)
