# aliasfuzz ref: the functional program (no in-place op, no aliasing relied on)
# final inputs (input index: output index): {0: 1}
def program(x: Tensor) -> Tuple[Tensor, Tensor]:
    x_1 = x.unsqueeze(0)
    y = x_1.reshape([3, -1])
    y_1 = torch.add(y, 1)
    tmp_1 = y_1.reshape([3, 4])
    x_2 = tmp_1.unsqueeze(0)
    z = x_2[:1, 1]
    z_1 = torch.mul(z, 2)
    x_3 = torch.select_scatter(x_2, z_1, 1, 1)
    r = torch.add(x_3, 1)
    return (r, x_3)
