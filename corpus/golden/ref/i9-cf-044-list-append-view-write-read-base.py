# aliasfuzz ref: the functional program (no in-place op, no aliasing relied on)
# final inputs (input index: output index): {0: 1}
def program(x: Tensor, a: Tensor) -> Tuple[Tensor, Tensor]:
    v = x[1]
    v_1 = torch.add(v, 1)
    x_1 = torch.select_scatter(x, v_1, 0, 1)
    v_2 = torch.mul(v_1, 3)
    x_2 = torch.select_scatter(x_1, v_2, 0, 1)
    r = torch.mul(x_2, 2)
    return (r, x_2)
