# aliasfuzz ref: the functional program (no in-place op, no aliasing relied on)
# final inputs (input index: output index): {}
def program(x: Tensor, n: Tensor) -> Tuple[Tensor, Tensor, Tensor, Tensor, Tensor]:
    z = torch.zeros_like(x)
    zv = z[1]
    zv_1 = zv.copy(n)
    z_1 = torch.select_scatter(z, zv_1, 0, 1)
    o = x.new_ones([2, 3])
    o_1 = torch.mul(o, x)
    f = torch.full_like(n, 4)
    f_1 = torch.sub(f, n)
    k = torch.ones_like(n)
    e = n.new_zeros([2])
    g = x.new_full([3], 2.5)
    g_1 = torch.add(g, k)
    return (z_1, o_1, f_1, e, g_1)
