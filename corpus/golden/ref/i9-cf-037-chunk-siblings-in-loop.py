# aliasfuzz ref: the functional program (no in-place op, no aliasing relied on)
# final inputs (input index: output index): {0: 1}
def program(x: Tensor) -> Tuple[Tensor, Tensor]:
    a = x.chunk(2, 0)[0]
    b = x.chunk(2, 0)[1]
    a_1 = torch.add(a, b)
    x_1 = torch.slice_scatter(x, a_1, 0, 0, 2, 1)
    b_1 = x_1.chunk(2, 0)[1]
    b_2 = torch.mul(b_1, -1)
    x_2 = torch.slice_scatter(x_1, b_2, 0, 2, 4, 1)
    a_2 = x_2.chunk(2, 0)[0]
    a_3 = torch.add(a_2, b_2)
    x_3 = torch.slice_scatter(x_2, a_3, 0, 0, 2, 1)
    b_3 = x_3.chunk(2, 0)[1]
    b_4 = torch.mul(b_3, -1)
    x_4 = torch.slice_scatter(x_3, b_4, 0, 2, 4, 1)
    a_4 = x_4.chunk(2, 0)[0]
    a_5 = torch.add(a_4, b_4)
    x_5 = torch.slice_scatter(x_4, a_5, 0, 0, 2, 1)
    b_5 = x_5.chunk(2, 0)[1]
    b_6 = torch.mul(b_5, -1)
    x_6 = torch.slice_scatter(x_5, b_6, 0, 2, 4, 1)
    return (x_6, x_6)
