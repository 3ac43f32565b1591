# aliasfuzz ref: the functional program (no in-place op, no aliasing relied on)
# final inputs (input index: output index): {0: 2}
def program(x: Tensor) -> Tuple[Tensor, Tensor, Tensor]:
    x_1 = x.as_strided([2, 3], [3, 1], 0)
    r = torch.mul(x_1, 2)
    return (r, x_1, x_1)
