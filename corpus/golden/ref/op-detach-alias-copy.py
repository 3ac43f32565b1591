# aliasfuzz ref: the functional program (no in-place op, no aliasing relied on)
# final inputs (input index: output index): {0: 2}
def program(x: Tensor, y: Tensor) -> Tuple[Tensor, Tensor, Tensor]:
    x_1 = x.copy(y)
    r = torch.sub(x_1, 1)
    return (r, x_1, x_1)
