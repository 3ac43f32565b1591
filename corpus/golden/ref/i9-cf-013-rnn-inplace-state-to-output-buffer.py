# aliasfuzz ref: the functional program (no in-place op, no aliasing relied on)
# final inputs (input index: output index): {1: 2}
def program(x: Tensor, hs: Tensor, h0: Tensor) -> Tuple[Tensor, Tensor, Tensor]:
    h = torch.clone(h0)
    h_1 = torch.mul(h, 0.5)
    xi = x[0]
    h_2 = torch.add(h_1, xi)
    h_3 = torch.tanh(h_2)
    tmp_1 = hs[0]
    tmp_2 = tmp_1.copy(h_3)
    hs_1 = torch.select_scatter(hs, tmp_2, 0, 0)
    h_4 = torch.mul(h_3, 0.5)
    xi_1 = x[1]
    h_5 = torch.add(h_4, xi_1)
    h_6 = torch.tanh(h_5)
    tmp_3 = hs_1[1]
    tmp_4 = tmp_3.copy(h_6)
    hs_2 = torch.select_scatter(hs_1, tmp_4, 0, 1)
    h_7 = torch.mul(h_6, 0.5)
    xi_2 = x[2]
    h_8 = torch.add(h_7, xi_2)
    h_9 = torch.tanh(h_8)
    tmp_5 = hs_2[2]
    tmp_6 = tmp_5.copy(h_9)
    hs_3 = torch.select_scatter(hs_2, tmp_6, 0, 2)
    h_10 = torch.mul(h_9, 0.5)
    xi_3 = x[3]
    h_11 = torch.add(h_10, xi_3)
    h_12 = torch.tanh(h_11)
    tmp_7 = hs_3[3]
    tmp_8 = tmp_7.copy(h_12)
    hs_4 = torch.select_scatter(hs_3, tmp_8, 0, 3)
    return (h_12, hs_4, hs_4)
