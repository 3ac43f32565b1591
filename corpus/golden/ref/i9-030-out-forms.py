# aliasfuzz ref: the functional program (no in-place op, no aliasing relied on)
# final inputs (input index: output index): {0: 3, 1: 4, 2: 5}
def program(x: Tensor, y: Tensor, z: Tensor, w: Tensor) -> Tuple[Tensor, Tensor, Tensor, Tensor, Tensor, Tensor]:
    y0 = y[0]
    y1 = y[1]
    r0_1 = torch.sub(y0, y1)
    x_1 = torch.select_scatter(x, r0_1, 0, 0)
    r1_1 = torch.div(y0, y1)
    x_2 = torch.select_scatter(x_1, r1_1, 0, 1)
    r2_1 = torch.neg(y1)
    x_3 = torch.select_scatter(x_2, r2_1, 0, 2)
    y3 = y[:, 3]
    r3_1 = torch.exp(y3)
    x_4 = torch.select_scatter(x_3, r3_1, 1, 3)
    t = y.transpose(0, 1)
    t0_1 = torch.clamp(z, -1, 2)
    t_1 = torch.slice_scatter(t, t0_1, 0, 0, 2, 1)
    y_1 = t_1.transpose(0, 1)
    c_1 = torch.cumsum(w, 1)
    y_2 = torch.slice_scatter(y_1, c_1, 0, 2, 4, 1)
    m_1 = torch.mm(w, y_2)
    x_5 = torch.slice_scatter(x_4, m_1, 0, 2, 4, 1)
    z_1 = torch.cat([w], 0)
    return (x_5, y_2, z_1, x_5, y_2, z_1)
