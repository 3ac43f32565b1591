# aliasfuzz ref: the functional program (no in-place op, no aliasing relied on)
# final inputs (input index: output index): {0: 1, 1: 2}
def program(c0: Tensor, c1: Tensor, k: Tensor) -> Tuple[Tensor, Tensor, Tensor]:
    tmp_1 = c0[:, 0]
    tmp_2 = tmp_1.copy(k)
    c0_1 = torch.select_scatter(c0, tmp_2, 1, 0)
    k_1 = torch.add(k, 1)
    tmp_3 = c1[:, 0]
    tmp_4 = tmp_3.copy(k_1)
    c1_1 = torch.select_scatter(c1, tmp_4, 1, 0)
    k_2 = torch.add(k_1, 1)
    tmp_5 = c0_1[:, 1]
    tmp_6 = tmp_5.copy(k_2)
    c0_2 = torch.select_scatter(c0_1, tmp_6, 1, 1)
    k_3 = torch.add(k_2, 1)
    tmp_7 = c1_1[:, 1]
    tmp_8 = tmp_7.copy(k_3)
    c1_2 = torch.select_scatter(c1_1, tmp_8, 1, 1)
    k_4 = torch.add(k_3, 1)
    tmp_9 = c0_2[:, 2]
    tmp_10 = tmp_9.copy(k_4)
    c0_3 = torch.select_scatter(c0_2, tmp_10, 1, 2)
    k_5 = torch.add(k_4, 1)
    tmp_11 = c1_2[:, 2]
    tmp_12 = tmp_11.copy(k_5)
    c1_3 = torch.select_scatter(c1_2, tmp_12, 1, 2)
    k_6 = torch.add(k_5, 1)
    tmp_13 = c0_3[:, 3]
    tmp_14 = tmp_13.copy(k_6)
    c0_4 = torch.select_scatter(c0_3, tmp_14, 1, 3)
    k_7 = torch.add(k_6, 1)
    tmp_15 = c1_3[:, 3]
    tmp_16 = tmp_15.copy(k_7)
    c1_4 = torch.select_scatter(c1_3, tmp_16, 1, 3)
    s = torch.stack([c0_4, c1_4], 0)
    return (s, c0_4, c1_4)
