# aliasfuzz ref: the functional program (no in-place op, no aliasing relied on)
# final inputs (input index: output index): {}
def program(x: Tensor) -> Tuple[Tensor, Tensor]:
    z = torch.zeros([3, 4])
    zr = z[1]
    zr_1 = torch.add(zr, 3)
    z_1 = torch.select_scatter(z, zr_1, 0, 1)
    zc = z_1[:, 1:3:1]
    xc = x[:, 1:3:1]
    zc_1 = torch.add(zc, xc)
    z_2 = torch.slice_scatter(z_1, zc_1, 1, 1, 3, 1)
    r = torch.mul(z_2, 2)
    return (r, z_2)
