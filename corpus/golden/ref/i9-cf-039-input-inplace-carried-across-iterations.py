# aliasfuzz ref: the functional program (no in-place op, no aliasing relied on)
# final inputs (input index: output index): {0: 1, 1: 2}
def program(k: Tensor, o: Tensor) -> Tuple[Tensor, Tensor, Tensor]:
    s = torch.sum(k)
    tmp_1 = o[0]
    tmp_2 = tmp_1.copy(s)
    o_1 = torch.select_scatter(o, tmp_2, 0, 0)
    k_1 = torch.add(k, 1)
    s_1 = torch.sum(k_1)
    tmp_3 = o_1[1]
    tmp_4 = tmp_3.copy(s_1)
    o_2 = torch.select_scatter(o_1, tmp_4, 0, 1)
    k_2 = torch.add(k_1, 1)
    s_2 = torch.sum(k_2)
    tmp_5 = o_2[2]
    tmp_6 = tmp_5.copy(s_2)
    o_3 = torch.select_scatter(o_2, tmp_6, 0, 2)
    k_3 = torch.add(k_2, 1)
    s_3 = torch.sum(k_3)
    tmp_7 = o_3[3]
    tmp_8 = tmp_7.copy(s_3)
    o_4 = torch.select_scatter(o_3, tmp_8, 0, 3)
    k_4 = torch.add(k_3, 1)
    return (o_4, k_4, o_4)
