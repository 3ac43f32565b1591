# aliasfuzz ref: the functional program (no in-place op, no aliasing relied on)
# final inputs (input index: output index): {0: 2}
def program(x: Tensor) -> Tuple[Tensor, Tensor, Tensor]:
    x_1 = torch.add(x, 1)
    v = x_1[1]
    v_1 = v.fill(3)
    x_2 = torch.select_scatter(x_1, v_1, 0, 1)
    z = x_2.to(torch.int64)
    z_1 = torch.mul(z, 2)
    r = torch.mul(x_2, 2)
    return (r, z_1, x_2)
