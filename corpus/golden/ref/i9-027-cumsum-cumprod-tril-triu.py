# aliasfuzz ref: the functional program (no in-place op, no aliasing relied on)
# final inputs (input index: output index): {0: 3, 1: 4, 2: 5}
def program(x: Tensor, n: Tensor, y: Tensor) -> Tuple[Tensor, Tensor, Tensor, Tensor, Tensor, Tensor]:
    t = x.transpose(0, 1)
    t_1 = torch.cumsum(t, 0)
    x_1 = t_1.transpose(0, 1)
    r = n[1]
    r_1 = torch.cumprod(r, 0)
    n_1 = torch.select_scatter(n, r_1, 0, 1)
    c = n_1[:, 1:4:1]
    c_1 = torch.cumsum(c, -1)
    n_2 = torch.slice_scatter(n_1, c_1, 1, 1, 4, 1)
    u = y.transpose(0, 1)
    u_1 = torch.tril(u, -1)
    y_1 = u_1.transpose(0, 1)
    v = y_1[0:3:1]
    v_1 = torch.triu(v, 1)
    y_2 = torch.slice_scatter(y_1, v_1, 0, 0, 3, 1)
    return (x_1, n_2, y_2, x_1, n_2, y_2)
