# aliasfuzz ref: the functional program (no in-place op, no aliasing relied on)
# final inputs (input index: output index): {0: 2}
def program(x: Tensor) -> Tuple[Tensor, Tensor, Tensor]:
    acc = x[0]
    rest = x[1:4:1]
    r = rest[0]
    acc_1 = torch.add(acc, r)
    x_1 = torch.select_scatter(x, acc_1, 0, 0)
    rest_1 = x_1[1:4:1]
    r_1 = rest_1[0]
    r_2 = r_1.copy(acc_1)
    rest_2 = torch.select_scatter(rest_1, r_2, 0, 0)
    x_2 = torch.slice_scatter(x_1, rest_2, 0, 1, 4, 1)
    r_3 = rest_2[1]
    acc_2 = x_2[0]
    acc_3 = torch.add(acc_2, r_3)
    x_3 = torch.select_scatter(x_2, acc_3, 0, 0)
    rest_3 = x_3[1:4:1]
    r_4 = rest_3[1]
    r_5 = r_4.copy(acc_3)
    rest_4 = torch.select_scatter(rest_3, r_5, 0, 1)
    x_4 = torch.slice_scatter(x_3, rest_4, 0, 1, 4, 1)
    r_6 = rest_4[2]
    acc_4 = x_4[0]
    acc_5 = torch.add(acc_4, r_6)
    x_5 = torch.select_scatter(x_4, acc_5, 0, 0)
    rest_5 = x_5[1:4:1]
    r_7 = rest_5[2]
    r_8 = r_7.copy(acc_5)
    rest_6 = torch.select_scatter(rest_5, r_8, 0, 2)
    x_6 = torch.slice_scatter(x_5, rest_6, 0, 1, 4, 1)
    acc_6 = x_6[0]
    o = torch.clone(acc_6)
    return (o, x_6, x_6)
