# aliasfuzz ref: the functional program (no in-place op, no aliasing relied on)
# final inputs (input index: output index): {0: 2}
def program(x: Tensor) -> Tuple[Tensor, Tensor, Tensor]:
    g = x.diagonal(0, 0, 1)
    g_1 = torch.sin(g)
    x_1 = torch.diagonal_scatter(x, g_1, 0, 0, 1)
    h = x_1.diagonal(1, 0, 1)
    h_1 = torch.cos(h)
    x_2 = torch.diagonal_scatter(x_1, h_1, 1, 0, 1)
    r0 = x_2.unbind(0)[3]
    r0_1 = torch.tan(r0)
    x_3 = torch.select_scatter(x_2, r0_1, 0, 3)
    y = torch.clone(x_3)
    y_1 = torch.div(y, 8)
    c0 = y_1.unbind(1)[0]
    c0_1 = torch.asin(c0)
    y_2 = torch.select_scatter(y_1, c0_1, 1, 0)
    c1 = y_2.unbind(1)[-1]
    c1_1 = torch.acos(c1)
    y_3 = torch.select_scatter(y_2, c1_1, 1, 3)
    c2 = y_3.unbind(0)[2]
    c2_1 = torch.atan(c2)
    y_4 = torch.select_scatter(y_3, c2_1, 0, 2)
    return (x_3, y_4, x_3)
