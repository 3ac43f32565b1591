# aliasfuzz ref: the functional program (no in-place op, no aliasing relied on)
# final inputs (input index: output index): {0: 1}
def program(x: Tensor, y: Tensor) -> Tuple[Tensor, Tensor]:
    v0 = x.unbind(0)[-1]
    v0_1 = torch.neg(v0)
    x_1 = torch.select_scatter(x, v0_1, 0, 2)
    v0_2 = v0_1.contiguous()
    v1 = torch.as_strided_scatter(v0_2, y, [1], [1], 0)
    return (v1, x_1)
