# aliasfuzz ref: the functional program (no in-place op, no aliasing relied on)
# final inputs (input index: output index): {0: 1}
def program(x: Tensor, t: Tensor) -> Tuple[Tensor, Tensor]:
    y = x[1:4:1]
    ts = torch.sum(t)
    c = torch.gt(ts, 0)
    assert bool(c) == True
    y_1 = torch.ge(y, 0)
    y_2 = y.copy(y_1)
    x_1 = torch.slice_scatter(x, y_2, 0, 1, 4, 1)
    r = torch.mul(x_1, 2)
    return (r, x_1)
