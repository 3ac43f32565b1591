# aliasfuzz ref: the functional program (no in-place op, no aliasing relied on)
# final inputs (input index: output index): {0: 2, 1: 3}
def program(x: Tensor, o: Tensor) -> Tuple[Tensor, Tensor, Tensor, Tensor]:
    r2 = x[2]
    r2_1 = torch.add(r2, 1)
    x_1 = torch.select_scatter(x, r2_1, 0, 2)
    s = torch.sum(x_1)
    tmp_1 = o[0]
    tmp_2 = tmp_1.copy(s)
    o_1 = torch.select_scatter(o, tmp_2, 0, 0)
    r1_1 = x_1[1]
    r1_2 = torch.add(r1_1, 1)
    x_2 = torch.select_scatter(x_1, r1_2, 0, 1)
    s_1 = torch.sum(x_2)
    tmp_3 = o_1[1]
    tmp_4 = tmp_3.copy(s_1)
    o_2 = torch.select_scatter(o_1, tmp_4, 0, 1)
    r0_2 = x_2[0]
    r0_3 = torch.add(r0_2, 1)
    x_3 = torch.select_scatter(x_2, r0_3, 0, 0)
    s_2 = torch.sum(x_3)
    tmp_5 = o_2[2]
    tmp_6 = tmp_5.copy(s_2)
    o_3 = torch.select_scatter(o_2, tmp_6, 0, 2)
    return (x_3, o_3, x_3, o_3)
