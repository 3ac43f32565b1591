# aliasfuzz ref: the functional program (no in-place op, no aliasing relied on)
# final inputs (input index: output index): {0: 3}
def program(x: Tensor, y: Tensor) -> Tuple[Tensor, Tensor, Tensor, Tensor]:
    a = x[0]
    a_1 = torch.mul(a, -2)
    x_1 = torch.select_scatter(x, a_1, 0, 0)
    c = torch.cat([x_1, y], 0)
    s = torch.stack([x_1, y], 1)
    m = torch.gt(x_1, y)
    w = torch.where(m, x_1, y)
    d = torch.div(w, 4)
    ab = torch.abs(d)
    cl = torch.clamp(ab, None, 1)
    sm = torch.sum(s)
    return (c, cl, sm, x_1)
