# aliasfuzz ref: the functional program (no in-place op, no aliasing relied on)
# final inputs (input index: output index): {0: 2}
def program(x: Tensor, v: Tensor) -> Tuple[Tensor, Tensor, Tensor]:
    y = x[:3]
    y_1 = y.fill(0)
    x_1 = torch.slice_scatter(x, y_1, 0, 0, 3, 1)
    z = x_1[3:, 1:4:2]
    z_1 = torch.add(z, 1)
    tmp_1 = x_1[3:5:1]
    tmp_2 = torch.slice_scatter(tmp_1, z_1, 1, 1, 4, 2)
    x_2 = torch.slice_scatter(x_1, tmp_2, 0, 3, 5, 1)
    r = torch.mul(x_2, 2)
    y_2 = x_2[0:3:1]
    return (r, y_2, x_2)
