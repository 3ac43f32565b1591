# aliasfuzz ref: the functional program (no in-place op, no aliasing relied on)
# final inputs (input index: output index): {0: 2, 1: 3}
def program(x: Tensor, y: Tensor) -> Tuple[Tensor, Tensor, Tensor, Tensor]:
    x_1 = torch.log1p(x)
    v = y[1]
    v_1 = torch.mul(v, 3)
    y_1 = torch.select_scatter(y, v_1, 0, 1)
    r = torch.mul(y_1, 2)
    return (x_1, r, x_1, y_1)
