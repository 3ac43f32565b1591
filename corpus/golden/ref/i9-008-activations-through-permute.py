# aliasfuzz ref: the functional program (no in-place op, no aliasing relied on)
# final inputs (input index: output index): {0: 2}
def program(x: Tensor) -> Tuple[Tensor, Tensor, Tensor]:
    p = x.permute([2, 0, 1])
    a = p[0]
    a_1 = torch.selu(a)
    p_1 = torch.select_scatter(p, a_1, 0, 0)
    b = p_1[1]
    b_1 = torch.celu(b, 0.5)
    p_2 = torch.select_scatter(p_1, b_1, 0, 1)
    c = p_2[2]
    c_1 = c.elu(2)
    p_3 = torch.select_scatter(p_2, c_1, 0, 2)
    d = p_3[3]
    d_1 = d.leaky_relu(0.25)
    p_4 = torch.select_scatter(p_3, d_1, 0, 3)
    x_4 = p_4.permute([1, 2, 0])
    q = x_4[1]
    q_1 = q.hardsigmoid()
    x_5 = torch.select_scatter(x_4, q_1, 0, 1)
    r = x_5[:, 2]
    r_1 = r.hardswish()
    x_6 = torch.select_scatter(x_5, r_1, 1, 2)
    o = torch.mul(x_6, 3)
    p_5 = x_6.permute([2, 0, 1])
    return (o, p_5, x_6)
