# aliasfuzz ref: the functional program (no in-place op, no aliasing relied on)
# final inputs (input index: output index): {0: 1, 1: 2, 2: 3}
def program(n: Tensor, running_mean: Tensor, x: Tensor) -> Tuple[Tensor, Tensor, Tensor, Tensor]:
    n_1 = torch.add(n, 1)
    xi = x[0]
    xi_1 = torch.sub(xi, running_mean)
    x_1 = torch.select_scatter(x, xi_1, 0, 0)
    xi_2 = torch.div(xi_1, 2)
    x_2 = torch.select_scatter(x_1, xi_2, 0, 0)
    running_mean_1 = torch.add(running_mean, xi_2)
    n_2 = torch.add(n_1, 1)
    xi_3 = x_2[1]
    xi_4 = torch.sub(xi_3, running_mean_1)
    x_3 = torch.select_scatter(x_2, xi_4, 0, 1)
    xi_5 = torch.div(xi_4, 2)
    x_4 = torch.select_scatter(x_3, xi_5, 0, 1)
    running_mean_2 = torch.add(running_mean_1, xi_5)
    n_3 = torch.add(n_2, 1)
    xi_6 = x_4[2]
    xi_7 = torch.sub(xi_6, running_mean_2)
    x_5 = torch.select_scatter(x_4, xi_7, 0, 2)
    xi_8 = torch.div(xi_7, 2)
    x_6 = torch.select_scatter(x_5, xi_8, 0, 2)
    running_mean_3 = torch.add(running_mean_2, xi_8)
    n_4 = torch.add(n_3, 1)
    xi_9 = x_6[3]
    xi_10 = torch.sub(xi_9, running_mean_3)
    x_7 = torch.select_scatter(x_6, xi_10, 0, 3)
    xi_11 = torch.div(xi_10, 2)
    x_8 = torch.select_scatter(x_7, xi_11, 0, 3)
    running_mean_4 = torch.add(running_mean_3, xi_11)
    r = torch.mul(n_4, 3)
    return (r, n_4, running_mean_4, x_8)
