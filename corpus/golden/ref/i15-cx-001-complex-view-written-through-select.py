# aliasfuzz ref: the functional program (no in-place op, no aliasing relied on)
# final inputs (input index: output index): {0: 2}
def program(x: Tensor) -> Tuple[Tensor, Tensor, Tensor]:
    y = x.unflatten(1, [2, 2])
    y_1 = y.new_zeros([3, 2, 2])
    y_2 = torch.slice_scatter(y_1, y, 0, 0, 3, 1)
    c = torch.view_as_complex(y_2)
    r = c[:, 1]
    r_1 = torch.mul(r, 2)
    c_1 = torch.select_scatter(c, r_1, 1, 1)
    d = c_1[2]
    d_1 = torch.neg(d)
    c_2 = torch.select_scatter(c_1, d_1, 0, 2)
    y_4 = torch.view_as_real(c_2)
    x_2 = y_4.reshape([3, 4])
    w = torch.view_as_real(c_2)
    s = torch.add(x_2, 1)
    return (s, w, x_2)
