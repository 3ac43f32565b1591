# aliasfuzz ref: the functional program (no in-place op, no aliasing relied on)
# final inputs (input index: output index): {0: 2}
def program(t: Tensor, x: Tensor) -> Tuple[Tensor, Tensor, Tensor]:
    r = t[1]
    t_1 = torch.mul(t, 2)
    r_1 = torch.add(r, x)
    y = torch.add(t_1, r_1)
    return (y, r_1, t_1)
