# aliasfuzz ref: the functional program (no in-place op, no aliasing relied on)
# final inputs (input index: output index): {0: 1, 1: 2}
def program(x: Tensor, n: Tensor) -> Tuple[Tensor, Tensor, Tensor]:
    v = x.transpose(0, 1)
    tmp_1 = v[0]
    tmp_2 = torch.div(tmp_1, 2)
    v_1 = torch.select_scatter(v, tmp_2, 0, 0)
    x_1 = v_1.transpose(0, 1)
    tmp_3 = n[1:5:1]
    tmp_4 = torch.bitwise_right_shift(tmp_3, 1)
    n_1 = torch.slice_scatter(n, tmp_4, 0, 1, 5, 1)
    r = torch.mul(x_1, 1)
    return (r, x_1, n_1)
