# aliasfuzz ref: the functional program (no in-place op, no aliasing relied on)
# final inputs (input index: output index): {0: 1}
def program(x: Tensor) -> Tuple[Tensor, Tensor]:
    m = torch.gt(x, 0)
    v = x.reshape([24])
    mv = m.reshape([24])
    v_1 = torch.masked_fill(v, mv, -1)
    x_1 = v_1.reshape([4, 6])
    r = torch.neg(x_1)
    return (r, x_1)
