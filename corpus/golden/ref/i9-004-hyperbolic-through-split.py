# aliasfuzz ref: the functional program (no in-place op, no aliasing relied on)
# final inputs (input index: output index): {0: 3}
def program(x: Tensor) -> Tuple[Tensor, Tensor, Tensor, Tensor]:
    a = x.split(2, 1)[0]
    a_1 = torch.sinh(a)
    x_1 = torch.slice_scatter(x, a_1, 1, 0, 2, 1)
    b = x_1.split(2, 1)[1]
    b_1 = torch.cosh(b)
    x_2 = torch.slice_scatter(x_1, b_1, 1, 2, 4, 1)
    c = x_2.split(2, 1)[-1]
    c_1 = torch.tanh(c)
    x_3 = torch.slice_scatter(x_2, c_1, 1, 4, 5, 1)
    y = torch.div(x_3, 4)
    d = y.split(1, 0)[0]
    d_1 = torch.asinh(d)
    y_1 = torch.slice_scatter(y, d_1, 0, 0, 1, 1)
    e = y_1.split(1, 0)[1]
    e_1 = torch.acosh(e)
    y_2 = torch.slice_scatter(y_1, e_1, 0, 1, 2, 1)
    f = y_2.split(2, 0)[-1]
    f_1 = torch.atanh(f)
    y_3 = torch.slice_scatter(y_2, f_1, 0, 2, 3, 1)
    a_2 = x_3.split(2, 1)[0]
    return (x_3, y_3, a_2, x_3)
