# aliasfuzz ref: the functional program (no in-place op, no aliasing relied on)
# final inputs (input index: output index): {}
def program(x: Tensor) -> Tuple[Tensor, Tensor]:
    y = torch.div(x, 4)
    a = y.chunk(3, 0)[0]
    a_1 = torch.lgamma(a)
    y_1 = torch.slice_scatter(y, a_1, 0, 0, 2, 1)
    b = y_1.chunk(3, 0)[1]
    b_1 = torch.frac(b)
    y_2 = torch.slice_scatter(y_1, b_1, 0, 2, 4, 1)
    b_2 = torch.digamma(b_1)
    y_3 = torch.slice_scatter(y_2, b_2, 0, 2, 4, 1)
    c = y_3.chunk(3, 0)[-1]
    c_1 = torch.i0(c)
    y_4 = torch.slice_scatter(y_3, c_1, 0, 4, 5, 1)
    z = torch.clone(y_4)
    d = z.chunk(2, 1)[0]
    d_1 = torch.sinc(d)
    z_1 = torch.slice_scatter(z, d_1, 1, 0, 2, 1)
    e = z_1.chunk(2, 1)[1]
    e_1 = torch.logit(e)
    z_2 = torch.slice_scatter(z_1, e_1, 1, 2, 4, 1)
    return (y_4, z_2)
