# aliasfuzz ref: the functional program (no in-place op, no aliasing relied on)
# final inputs (input index: output index): {0: 2, 3: 3}
def program(x: Tensor, y: Tensor, w: Tensor, n: Tensor, k: Tensor) -> Tuple[Tensor, Tensor, Tensor, Tensor]:
    t = x.transpose(0, 1)
    t_1 = torch.lerp(t, y, 0.25)
    x_1 = t_1.transpose(0, 1)
    s = x_1[0:2:1]
    ys = y[:, 0:2:1]
    yt = ys.transpose(0, 1)
    s_1 = torch.lerp(s, yt, yt)
    x_2 = torch.slice_scatter(x_1, s_1, 0, 0, 2, 1)
    m = n[1]
    m_1 = torch.addcmul(m, k, k, value=2)
    n_1 = torch.select_scatter(n, m_1, 0, 1)
    u = x_2[:, 2]
    w2 = torch.add(w, 6)
    u_1 = torch.addcdiv(u, w, w2, value=0.5)
    x_3 = torch.select_scatter(x_2, u_1, 1, 2)
    return (x_3, n_1, x_3, n_1)
