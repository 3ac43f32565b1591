# aliasfuzz ref: the functional program (no in-place op, no aliasing relied on)
# final inputs (input index: output index): {0: 1}
def program(x: Tensor) -> Tuple[Tensor, Tensor]:
    a = x.as_strided([2, 2], [6, 1], 7)
    a_1 = a.fill(9)
    x_1 = torch.as_strided_scatter(x, a_1, [2, 2], [6, 1], 7)
    return (x_1, x_1)
