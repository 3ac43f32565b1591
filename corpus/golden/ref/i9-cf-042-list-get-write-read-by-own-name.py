# aliasfuzz ref: the functional program (no in-place op, no aliasing relied on)
# final inputs (input index: output index): {1: 2}
def program(a: Tensor, b: Tensor) -> Tuple[Tensor, Tensor, Tensor]:
    b_1 = torch.mul(b, 2)
    r = torch.add(b_1, 1)
    c = torch.cat([a, b_1], 1)
    return (r, c, b_1)
