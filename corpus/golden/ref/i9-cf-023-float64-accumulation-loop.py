# aliasfuzz ref: the functional program (no in-place op, no aliasing relied on)
# final inputs (input index: output index): {0: 2, 1: 3}
def program(acc: Tensor, x: Tensor) -> Tuple[Tensor, Tensor, Tensor, Tensor]:
    xi = x[0]
    acc_1 = torch.add(acc, xi)
    acc_2 = torch.mul(acc_1, 1.5)
    xi_1 = torch.sub(xi, acc_2)
    xi_2 = xi.copy(xi_1)
    x_1 = torch.select_scatter(x, xi_2, 0, 0)
    xi_3 = x_1[1]
    acc_3 = torch.add(acc_2, xi_3)
    acc_4 = torch.mul(acc_3, 1.5)
    xi_4 = torch.sub(xi_3, acc_4)
    xi_5 = xi_3.copy(xi_4)
    x_2 = torch.select_scatter(x_1, xi_5, 0, 1)
    xi_6 = x_2[2]
    acc_5 = torch.add(acc_4, xi_6)
    acc_6 = torch.mul(acc_5, 1.5)
    xi_7 = torch.sub(xi_6, acc_6)
    xi_8 = xi_6.copy(xi_7)
    x_3 = torch.select_scatter(x_2, xi_8, 0, 2)
    xi_9 = x_3[3]
    acc_7 = torch.add(acc_6, xi_9)
    acc_8 = torch.mul(acc_7, 1.5)
    xi_10 = torch.sub(xi_9, acc_8)
    xi_11 = xi_9.copy(xi_10)
    x_4 = torch.select_scatter(x_3, xi_11, 0, 3)
    xi_12 = x_4[4]
    acc_9 = torch.add(acc_8, xi_12)
    acc_10 = torch.mul(acc_9, 1.5)
    xi_13 = torch.sub(xi_12, acc_10)
    xi_14 = xi_12.copy(xi_13)
    x_5 = torch.select_scatter(x_4, xi_14, 0, 4)
    return (acc_10, x_5, acc_10, x_5)
