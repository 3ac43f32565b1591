# aliasfuzz ref: the functional program (no in-place op, no aliasing relied on)
# final inputs (input index: output index): {0: 2}
def program(x: Tensor) -> Tuple[Tensor, Tensor, Tensor]:
    y = x.reshape([4, 2, -1])
    y_1 = torch.mul(y, 3)
    x_1 = y_1.reshape([4, 6])
    z = x_1.reshape([6, 4])
    w = z[1]
    w_1 = torch.sub(w, 1)
    z_1 = torch.select_scatter(z, w_1, 0, 1)
    x_2 = z_1.reshape([4, 6])
    r = torch.add(x_2, 0)
    return (r, z_1, x_2)
