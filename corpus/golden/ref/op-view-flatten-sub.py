# aliasfuzz ref: the functional program (no in-place op, no aliasing relied on)
# final inputs (input index: output index): {0: 2}
def program(x: Tensor) -> Tuple[Tensor, Tensor, Tensor]:
    v = x.reshape([2, 12])
    f = v.flatten(0, 1)
    f_1 = torch.sub(f, 1.5)
    x_1 = f_1.reshape([4, 6])
    v_1 = x_1.reshape([2, 12])
    r = torch.clone(v_1)
    return (r, x_1, x_1)
