# aliasfuzz ref: the functional program (no in-place op, no aliasing relied on)
# final inputs (input index: output index): {0: 1}
def program(x: Tensor) -> Tuple[Tensor, Tensor]:
    v0 = x.as_strided([1, 1], [1, 1], 1)
    x_1 = torch.sub(x, 1)
    return (v0, x_1)
