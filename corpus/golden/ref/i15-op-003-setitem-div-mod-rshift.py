# aliasfuzz ref: the functional program (no in-place op, no aliasing relied on)
# final inputs (input index: output index): {0: 1, 1: 2}
def program(x: Tensor, n: Tensor) -> Tuple[Tensor, Tensor, Tensor]:
    v = x.transpose(0, 1)
    tmp_1 = v[0]
    tmp_2 = torch.div(tmp_1, 2)
    v_1 = torch.select_scatter(v, tmp_2, 0, 0)
    x_1 = v_1.transpose(0, 1)
    tmp_3 = x_1[1:3:1]
    tmp_4 = tmp_3[:, 0:4:2]
    tmp_5 = torch.remainder(tmp_4, 1.5)
    tmp_6 = torch.slice_scatter(tmp_3, tmp_5, 1, 0, 4, 2)
    x_2 = torch.slice_scatter(x_1, tmp_6, 0, 1, 3, 1)
    tmp_7 = n[1:5:1]
    tmp_8 = torch.bitwise_right_shift(tmp_7, 1)
    n_1 = torch.slice_scatter(n, tmp_8, 0, 1, 5, 1)
    r = torch.mul(x_2, 1)
    return (r, x_2, n_1)
