# aliasfuzz ref: the functional program (no in-place op, no aliasing relied on)
# final inputs (input index: output index): {0: 1}
def program(x: Tensor) -> Tuple[Tensor, Tensor]:
    y = x[:2]
    y_1 = y.fill(0)
    x_1 = torch.slice_scatter(x, y_1, 0, 0, 2, 1)
    r = torch.mul(x_1, 2)
    return (r, x_1)
