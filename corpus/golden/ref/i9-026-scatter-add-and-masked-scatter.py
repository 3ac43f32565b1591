# aliasfuzz ref: the functional program (no in-place op, no aliasing relied on)
# final inputs (input index: output index): {0: 3, 3: 4}
def program(x: Tensor, i: Tensor, src: Tensor, y: Tensor, src2: Tensor) -> Tuple[Tensor, Tensor, Tensor, Tensor, Tensor]:
    s = x[1:4:1]
    s_1 = torch.scatter_add(s, 0, i, src)
    x_1 = torch.slice_scatter(x, s_1, 0, 1, 4, 1)
    m = torch.gt(src2, 0)
    r = y[2:4:1]
    r_1 = torch.masked_scatter(r, m, src2)
    y_1 = torch.slice_scatter(y, r_1, 0, 2, 4, 1)
    o = torch.add(y_1, x_1)
    return (x_1, y_1, o, x_1, y_1)
