# aliasfuzz ref: the functional program (no in-place op, no aliasing relied on)
# final inputs (input index: output index): {0: 4}
def program(x: Tensor) -> Tuple[Tensor, Tensor, Tensor, Tensor, Tensor]:
    a = x.split(3, 1)[0]
    a_1 = torch.mul(a, -1)
    x_1 = torch.slice_scatter(x, a_1, 1, 0, 3, 1)
    c = x_1.chunk(2, 0)[1]
    c_1 = torch.add(c, 100)
    x_2 = torch.slice_scatter(x_1, c_1, 0, 2, 4, 1)
    d = x_2.unbind(0)[0]
    d_1 = torch.sub(d, 50)
    x_3 = torch.select_scatter(x_2, d_1, 0, 0)
    c_2 = x_3.chunk(2, 0)[1]
    e = c_2.split(1, 0)[-1]
    f = e.unbind(0)[0]
    f_1 = f.zero()
    e_1 = torch.select_scatter(e, f_1, 0, 0)
    c_3 = torch.slice_scatter(c_2, e_1, 0, 1, 2, 1)
    x_4 = torch.slice_scatter(x_3, c_3, 0, 2, 4, 1)
    a_2 = x_4.split(3, 1)[0]
    b_1 = x_4.split(3, 1)[-1]
    return (x_4, a_2, b_1, e_1, x_4)
