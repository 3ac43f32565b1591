# aliasfuzz ref: the functional program (no in-place op, no aliasing relied on)
# final inputs (input index: output index): {0: 2}
def program(x: Tensor) -> Tuple[Tensor, Tensor, Tensor]:
    v = x[1]
    v_1 = torch.add(v, 1)
    x_1 = torch.select_scatter(x, v_1, 0, 1)
    r = torch.mul(x_1, 2)
    return (r, v_1, x_1)
