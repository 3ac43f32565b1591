# aliasfuzz ref: the functional program (no in-place op, no aliasing relied on)
# final inputs (input index: output index): {0: 2}
def program(x: Tensor) -> Tuple[Tensor, Tensor, Tensor]:
    v_1 = x.as_strided([3, 2], [2, 1], 6)
    v_2 = v_1.fill(7)
    x_1 = torch.as_strided_scatter(x, v_2, [3, 2], [2, 1], 6)
    x_2 = x_1.contiguous()
    x_3 = torch.clone(x_2)
    v_3 = x_3.as_strided([3, 2], [2, 1], 6)
    return (x_1, v_3, x_1)
