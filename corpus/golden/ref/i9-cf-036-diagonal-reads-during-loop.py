# aliasfuzz ref: the functional program (no in-place op, no aliasing relied on)
# final inputs (input index: output index): {0: 3, 1: 4}
def program(x: Tensor, acc: Tensor) -> Tuple[Tensor, Tensor, Tensor, Tensor, Tensor]:
    tmp_1 = x[0]
    tmp_2 = tmp_1[0]
    tmp_3 = torch.mul(tmp_2, 2)
    tmp_4 = torch.select_scatter(tmp_1, tmp_3, 0, 0)
    x_1 = torch.select_scatter(x, tmp_4, 0, 0)
    d_1 = x_1.diagonal(0, 0, 1)
    s = torch.sum(d_1)
    tmp_5 = acc[0]
    tmp_6 = tmp_5.copy(s)
    acc_1 = torch.select_scatter(acc, tmp_6, 0, 0)
    tmp_7 = x_1[1]
    tmp_8 = tmp_7[1]
    tmp_9 = torch.mul(tmp_8, 2)
    tmp_10 = torch.select_scatter(tmp_7, tmp_9, 0, 1)
    x_2 = torch.select_scatter(x_1, tmp_10, 0, 1)
    d_2 = x_2.diagonal(0, 0, 1)
    s_1 = torch.sum(d_2)
    tmp_11 = acc_1[1]
    tmp_12 = tmp_11.copy(s_1)
    acc_2 = torch.select_scatter(acc_1, tmp_12, 0, 1)
    tmp_13 = x_2[2]
    tmp_14 = tmp_13[2]
    tmp_15 = torch.mul(tmp_14, 2)
    tmp_16 = torch.select_scatter(tmp_13, tmp_15, 0, 2)
    x_3 = torch.select_scatter(x_2, tmp_16, 0, 2)
    d_3 = x_3.diagonal(0, 0, 1)
    s_2 = torch.sum(d_3)
    tmp_17 = acc_2[2]
    tmp_18 = tmp_17.copy(s_2)
    acc_3 = torch.select_scatter(acc_2, tmp_18, 0, 2)
    tmp_19 = x_3[3]
    tmp_20 = tmp_19[3]
    tmp_21 = torch.mul(tmp_20, 2)
    tmp_22 = torch.select_scatter(tmp_19, tmp_21, 0, 3)
    x_4 = torch.select_scatter(x_3, tmp_22, 0, 3)
    d_4 = x_4.diagonal(0, 0, 1)
    s_3 = torch.sum(d_4)
    tmp_23 = acc_3[3]
    tmp_24 = tmp_23.copy(s_3)
    acc_4 = torch.select_scatter(acc_3, tmp_24, 0, 3)
    o = torch.clone(d_4)
    return (o, acc_4, x_4, x_4, acc_4)
