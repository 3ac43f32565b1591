# aliasfuzz ref: the functional program (no in-place op, no aliasing relied on)
# final inputs (input index: output index): {0: 2, 3: 3}
def program(x: Tensor, p: Tensor, q: Tensor, y: Tensor, g: Tensor, h: Tensor) -> Tuple[Tensor, Tensor, Tensor, Tensor]:
    u = x.unsqueeze(0)
    u_1 = torch.baddbmm(u, p, q, beta=1, alpha=2)
    x_1 = u_1.squeeze(0)
    t = y.transpose(0, 1)
    gt = g.transpose(1, 2)
    tv = t[0:2:1]
    tv_1 = torch.addbmm(tv, gt, g, beta=-1, alpha=1)
    t_1 = torch.slice_scatter(t, tv_1, 0, 0, 2, 1)
    y_1 = t_1.transpose(0, 1)
    return (x_1, y_1, x_1, y_1)
