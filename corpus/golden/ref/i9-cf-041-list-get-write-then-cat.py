# aliasfuzz ref: the functional program (no in-place op, no aliasing relied on)
# final inputs (input index: output index): {0: 1, 1: 2}
def program(a: Tensor, b: Tensor) -> Tuple[Tensor, Tensor, Tensor]:
    a_1 = torch.add(a, 1)
    b_1 = torch.mul(b, 2)
    c = torch.cat([a_1, b_1], 0)
    return (c, a_1, b_1)
