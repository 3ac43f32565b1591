# aliasfuzz ref: the functional program (no in-place op, no aliasing relied on)
# final inputs (input index: output index): {}
def program(x: Tensor) -> Tuple[Tensor, Tensor]:
    a = torch.arange(4)
    av = a.reshape([2, 2])
    a0 = av[1]
    a0_1 = torch.add(a0, 10)
    av_1 = torch.select_scatter(av, a0_1, 0, 1)
    a_1 = av_1.reshape([4])
    b = torch.arange(1, 4)
    tmp_1 = b[0:3:2]
    tmp_2 = tmp_1.fill(0)
    b_1 = torch.slice_scatter(b, tmp_2, 0, 0, 3, 2)
    r = torch.mul(a_1, 2)
    return (r, b_1)
