# aliasfuzz ref: the functional program (no in-place op, no aliasing relied on)
# final inputs (input index: output index): {}
def program(x: Tensor) -> Tuple[Tensor, Tensor]:
    y = torch.div(x, 4)
    a = y[0]
    a_1 = torch.floor(a)
    y_1 = torch.select_scatter(y, a_1, 0, 0)
    b = y_1[1]
    b_1 = torch.ceil(b)
    y_2 = torch.select_scatter(y_1, b_1, 0, 1)
    z = torch.mul(y_2, 2)
    c = z[:, 0:5:2]
    c_1 = torch.round(c)
    z_1 = torch.slice_scatter(z, c_1, 1, 0, 5, 2)
    d = y_2[3]
    d_1 = torch.trunc(d)
    y_3 = torch.select_scatter(y_2, d_1, 0, 3)
    e = y_3[:, 4]
    e_1 = torch.trunc(e)
    y_4 = torch.select_scatter(y_3, e_1, 1, 4)
    return (y_4, z_1)
