# aliasfuzz ref: the functional program (no in-place op, no aliasing relied on)
# final inputs (input index: output index): {0: 1}
def program(x: Tensor, a: Tensor, b: Tensor, v: Tensor, u: Tensor, w: Tensor) -> Tuple[Tensor, Tensor]:
    s = x[1:3:1]
    s_1 = torch.addmm(s, a, b, beta=2, alpha=-1)
    x_1 = torch.slice_scatter(x, s_1, 0, 1, 3, 1)
    r = x_1[0]
    bt = b.transpose(0, 1)
    r_1 = torch.addmv(r, bt, v, beta=1, alpha=1)
    x_2 = torch.select_scatter(x_1, r_1, 0, 0)
    t = x_2.transpose(0, 1)
    t_1 = torch.addr(t, u, w, beta=1, alpha=2)
    x_3 = t_1.transpose(0, 1)
    return (x_3, x_3)
