# aliasfuzz ref: the functional program (no in-place op, no aliasing relied on)
# final inputs (input index: output index): {0: 2}
def program(x: Tensor, i: Tensor, src: Tensor, v: Tensor, j: Tensor, s: Tensor) -> Tuple[Tensor, Tensor, Tensor]:
    t = x.transpose(0, 1)
    t_1 = torch.index_copy(t, 1, i, src)
    x_1 = t_1.transpose(0, 1)
    r = torch.mul(x_1, 2)
    x_2 = torch.index_fill(x_1, 1, i, v)
    c = x_2[:, 1:5:2]
    c_1 = torch.put(c, j, s, True)
    x_3 = torch.slice_scatter(x_2, c_1, 1, 1, 5, 2)
    return (x_3, r, x_3)
