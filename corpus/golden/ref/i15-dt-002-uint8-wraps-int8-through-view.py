# aliasfuzz ref: the functional program (no in-place op, no aliasing relied on)
# final inputs (input index: output index): {0: 2, 1: 3}
def program(u: Tensor, s: Tensor) -> Tuple[Tensor, Tensor, Tensor, Tensor]:
    e = u[0:6:2]
    e_1 = torch.add(e, 250)
    u_1 = torch.slice_scatter(u, e_1, 0, 0, 6, 2)
    f = s.reshape([3, 2])
    g = f[:, 0]
    g_1 = torch.sub(g, 100)
    f_1 = torch.select_scatter(f, g_1, 1, 0)
    s_1 = f_1.reshape([2, 3])
    r = torch.add(u_1, 1)
    q = torch.neg(s_1)
    return (r, q, u_1, s_1)
