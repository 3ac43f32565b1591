# aliasfuzz ref: the functional program (no in-place op, no aliasing relied on)
# final inputs (input index: output index): {0: 1}
def program(x: Tensor, y: Tensor) -> Tuple[Tensor, Tensor]:
    v0 = x.unbind(0)[-1]
    v0_1 = torch.neg(v0)
    x_1 = torch.select_scatter(x, v0_1, 0, 2)
    v1_1 = v0_1.new_zeros([3])
    v1_2 = torch.as_strided_scatter(v1_1, v0_1, [], [], 2)
    v1_3 = torch.as_strided_scatter(v1_2, y, [1], [1], 0)
    v1 = v1_3.as_strided([], [], 2)
    return (v1, x_1)
