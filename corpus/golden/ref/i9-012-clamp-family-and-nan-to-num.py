# aliasfuzz ref: the functional program (no in-place op, no aliasing relied on)
# final inputs (input index: output index): {0: 1}
def program(x: Tensor, lo: Tensor) -> Tuple[Tensor, Tensor]:
    a = x[0]
    a_1 = torch.log(a)
    x_1 = torch.select_scatter(x, a_1, 0, 0)
    a_2 = torch.nan_to_num(a_1, 0.0, 9.0, -9.0)
    x_2 = torch.select_scatter(x_1, a_2, 0, 0)
    b = x_2[1:3:1]
    b_1 = torch.clamp_min(b, lo)
    x_3 = torch.slice_scatter(x_2, b_1, 0, 1, 3, 1)
    c = x_3.transpose(0, 1)
    c_1 = torch.clamp_max(c, 2)
    x_4 = c_1.transpose(0, 1)
    d = x_4[:, 3]
    d_1 = torch.clamp(d, -1, None)
    x_5 = torch.select_scatter(x_4, d_1, 1, 3)
    return (x_5, x_5)
