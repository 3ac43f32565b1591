# aliasfuzz ref: the functional program (no in-place op, no aliasing relied on)
# final inputs (input index: output index): {0: 1, 1: 2}
def program(k: Tensor, o: Tensor) -> Tuple[Tensor, Tensor, Tensor]:
    v = k[0:2:1]
    s = torch.sum(k)
    tmp_1 = o[0]
    tmp_2 = tmp_1.copy(s)
    o_1 = torch.select_scatter(o, tmp_2, 0, 0)
    v_1 = torch.add(v, 1)
    k_1 = torch.slice_scatter(k, v_1, 0, 0, 2, 1)
    s_1 = torch.sum(k_1)
    tmp_3 = o_1[1]
    tmp_4 = tmp_3.copy(s_1)
    o_2 = torch.select_scatter(o_1, tmp_4, 0, 1)
    v_2 = torch.add(v_1, 1)
    k_2 = torch.slice_scatter(k_1, v_2, 0, 0, 2, 1)
    s_2 = torch.sum(k_2)
    tmp_5 = o_2[2]
    tmp_6 = tmp_5.copy(s_2)
    o_3 = torch.select_scatter(o_2, tmp_6, 0, 2)
    v_3 = torch.add(v_2, 1)
    k_3 = torch.slice_scatter(k_2, v_3, 0, 0, 2, 1)
    s_3 = torch.sum(k_3)
    tmp_7 = o_3[3]
    tmp_8 = tmp_7.copy(s_3)
    o_4 = torch.select_scatter(o_3, tmp_8, 0, 3)
    v_4 = torch.add(v_3, 1)
    k_4 = torch.slice_scatter(k_3, v_4, 0, 0, 2, 1)
    return (o_4, k_4, o_4)
