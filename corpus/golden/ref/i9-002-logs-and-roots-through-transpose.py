# aliasfuzz ref: the functional program (no in-place op, no aliasing relied on)
# final inputs (input index: output index): {}
def program(x: Tensor) -> Tuple[Tensor, Tensor]:
    p = torch.abs(x)
    p_1 = torch.add(p, 1)
    t = p_1.transpose(0, 1)
    t0 = t[0]
    t0_1 = torch.log(t0)
    t_1 = torch.select_scatter(t, t0_1, 0, 0)
    t1 = t_1[1]
    t1_1 = torch.log2(t1)
    t_2 = torch.select_scatter(t_1, t1_1, 0, 1)
    t2 = t_2.narrow(0, 2, 2)
    t2_1 = torch.log10(t2)
    t_3 = torch.slice_scatter(t_2, t2_1, 0, 2, 4, 1)
    p_4 = t_3.transpose(0, 1)
    s = p_4[:, 4:5:1]
    s_1 = torch.sqrt(s)
    p_5 = torch.slice_scatter(p_4, s_1, 1, 4, 5, 1)
    u = p_5[2]
    u_1 = torch.rsqrt(u)
    p_6 = torch.select_scatter(p_5, u_1, 0, 2)
    t_4 = p_6.transpose(0, 1)
    return (p_6, t_4)
