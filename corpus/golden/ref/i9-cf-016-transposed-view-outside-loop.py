# aliasfuzz ref: the functional program (no in-place op, no aliasing relied on)
# final inputs (input index: output index): {0: 1}
def program(x: Tensor, w: Tensor) -> Tuple[Tensor, Tensor]:
    v = x.t()
    wi = w[0]
    tmp_1 = v[0]
    tmp_2 = torch.add(tmp_1, wi)
    v_1 = torch.select_scatter(v, tmp_2, 0, 0)
    wi_1 = w[1]
    tmp_3 = v_1[1]
    tmp_4 = torch.add(tmp_3, wi_1)
    v_2 = torch.select_scatter(v_1, tmp_4, 0, 1)
    wi_2 = w[2]
    tmp_5 = v_2[2]
    tmp_6 = torch.add(tmp_5, wi_2)
    v_3 = torch.select_scatter(v_2, tmp_6, 0, 2)
    wi_3 = w[3]
    tmp_7 = v_3[3]
    tmp_8 = torch.add(tmp_7, wi_3)
    v_4 = torch.select_scatter(v_3, tmp_8, 0, 3)
    x_4 = v_4.t()
    r = torch.mul(x_4, 2)
    return (r, x_4)
