# aliasfuzz ref: the functional program (no in-place op, no aliasing relied on)
# final inputs (input index: output index): {0: 2}
def program(x: Tensor) -> Tuple[Tensor, Tensor, Tensor]:
    y = x[1:3:1]
    y_1 = torch.add(y, 2)
    x_1 = torch.slice_scatter(x, y_1, 0, 1, 3, 1)
    y_2 = torch.mul(y_1, 3)
    x_2 = torch.slice_scatter(x_1, y_2, 0, 1, 3, 1)
    z = x_2.t()
    c = z[2]
    c_1 = c.fill(7)
    z_1 = torch.select_scatter(z, c_1, 0, 2)
    x_3 = z_1.t()
    r = torch.mul(x_3, 2)
    y_3 = x_3[1:3:1]
    return (r, y_3, x_3)
