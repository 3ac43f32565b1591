# aliasfuzz ref: the functional program (no in-place op, no aliasing relied on)
# final inputs (input index: output index): {0: 3}
def program(x: Tensor) -> Tuple[Tensor, Tensor, Tensor, Tensor]:
    a = x.narrow(1, 0, 2)
    a_1 = torch.exp2(a)
    x_1 = torch.slice_scatter(x, a_1, 1, 0, 2, 1)
    b = x_1[2:4:1]
    b_1 = torch.expm1(b)
    x_2 = torch.slice_scatter(x_1, b_1, 0, 2, 4, 1)
    r1 = torch.mul(x_2, 2)
    c = x_2[:, 3]
    c_1 = torch.exp(c)
    x_3 = torch.select_scatter(x_2, c_1, 1, 3)
    d = x_3[:, 4:6:1]
    d_1 = torch.log1p(d)
    x_4 = torch.slice_scatter(x_3, d_1, 1, 4, 6, 1)
    r2 = torch.add(x_4, 1)
    return (r1, r2, x_4, x_4)
