# aliasfuzz ref: the functional program (no in-place op, no aliasing relied on)
# final inputs (input index: output index): {0: 2, 1: 3}
def program(x: Tensor, y: Tensor) -> Tuple[Tensor, Tensor, Tensor, Tensor]:
    x_1 = torch.add(x, y)
    y_1 = torch.mul(x_1, y)
    return (x_1, y_1, x_1, y_1)
