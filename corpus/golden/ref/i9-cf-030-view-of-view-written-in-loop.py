# aliasfuzz ref: the functional program (no in-place op, no aliasing relied on)
# final inputs (input index: output index): {0: 1}
def program(x: Tensor, u: Tensor) -> Tuple[Tensor, Tensor]:
    y = x[1:4:1]
    z = y[:, 0]
    ui = u[0]
    z_1 = torch.add(z, ui)
    y_1 = torch.select_scatter(y, z_1, 1, 0)
    x_1 = torch.slice_scatter(x, y_1, 0, 1, 4, 1)
    ui_1 = u[1]
    z_2 = torch.add(z_1, ui_1)
    y_2 = torch.select_scatter(y_1, z_2, 1, 0)
    x_2 = torch.slice_scatter(x_1, y_2, 0, 1, 4, 1)
    ui_2 = u[2]
    z_3 = torch.add(z_2, ui_2)
    y_3 = torch.select_scatter(y_2, z_3, 1, 0)
    x_3 = torch.slice_scatter(x_2, y_3, 0, 1, 4, 1)
    r = torch.mul(x_3, 2)
    return (r, x_3)
