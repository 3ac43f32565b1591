# aliasfuzz ref: the functional program (no in-place op, no aliasing relied on)
# final inputs (input index: output index): {0: 0}
def program(x: Tensor) -> Tensor:
    v0 = x.unfold(0, 1, 2)
    v0_1 = torch.sigmoid(v0)
    x_1 = torch.as_strided_scatter(x, v0_1, [1, 1, 1, 1], [2, 1, 1, 1], 0)
    return x_1
