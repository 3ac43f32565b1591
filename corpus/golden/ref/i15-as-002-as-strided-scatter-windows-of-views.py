# aliasfuzz ref: the functional program (no in-place op, no aliasing relied on)
# final inputs (input index: output index): {0: 4}
def program(x: Tensor, y: Tensor, w: Tensor, z: Tensor) -> Tuple[Tensor, Tensor, Tensor, Tensor, Tensor]:
    a = x[0]
    b = a.narrow(0, 1, 3)
    b_1 = b.contiguous()
    r1 = torch.as_strided_scatter(b_1, y, [2], [1], 1)
    u = x.unfold(1, 2, 1)
    u_1 = u.contiguous()
    r2 = torch.as_strided_scatter(u_1, w, [3, 2], [2, 1], 1)
    n = x.narrow(0, -1, 1)
    n_1 = torch.mul(n, 2)
    x_1 = torch.slice_scatter(x, n_1, 0, 2, 3, 1)
    n_2 = n_1.contiguous()
    r3 = torch.as_strided_scatter(n_2, z, [1, 1, 1], [1, 8, 4], 1)
    d = x_1.diagonal(1, 0, 1)
    d_1 = d.contiguous()
    r4 = torch.as_strided_scatter(d_1, y, [2], [1], 1)
    return (r1, r2, r3, r4, x_1)
