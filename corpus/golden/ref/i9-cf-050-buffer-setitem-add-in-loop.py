# aliasfuzz ref: the functional program (no in-place op, no aliasing relied on)
# final inputs (input index: output index): {0: 2, 2: 3}
def program(buf: Tensor, x: Tensor, o: Tensor) -> Tuple[Tensor, Tensor, Tensor, Tensor]:
    xi = x[0]
    tmp_1 = buf[0]
    tmp_2 = torch.add(tmp_1, xi)
    buf_1 = torch.select_scatter(buf, tmp_2, 0, 0)
    s = torch.sum(buf_1)
    tmp_3 = o[0]
    tmp_4 = tmp_3.copy(s)
    o_1 = torch.select_scatter(o, tmp_4, 0, 0)
    xi_1 = x[1]
    tmp_5 = buf_1[1]
    tmp_6 = torch.add(tmp_5, xi_1)
    buf_2 = torch.select_scatter(buf_1, tmp_6, 0, 1)
    s_1 = torch.sum(buf_2)
    tmp_7 = o_1[1]
    tmp_8 = tmp_7.copy(s_1)
    o_2 = torch.select_scatter(o_1, tmp_8, 0, 1)
    xi_2 = x[2]
    tmp_9 = buf_2[2]
    tmp_10 = torch.add(tmp_9, xi_2)
    buf_3 = torch.select_scatter(buf_2, tmp_10, 0, 2)
    s_2 = torch.sum(buf_3)
    tmp_11 = o_2[2]
    tmp_12 = tmp_11.copy(s_2)
    o_3 = torch.select_scatter(o_2, tmp_12, 0, 2)
    xi_3 = x[3]
    tmp_13 = buf_3[3]
    tmp_14 = torch.add(tmp_13, xi_3)
    buf_4 = torch.select_scatter(buf_3, tmp_14, 0, 3)
    s_3 = torch.sum(buf_4)
    tmp_15 = o_3[3]
    tmp_16 = tmp_15.copy(s_3)
    o_4 = torch.select_scatter(o_3, tmp_16, 0, 3)
    r = torch.mul(buf_4, 2)
    return (r, o_4, buf_4, o_4)
