# aliasfuzz ref: the functional program (no in-place op, no aliasing relied on)
# final inputs (input index: output index): {1: 2}
def program(a: Tensor, b: Tensor) -> Tuple[Tensor, Tensor, Tensor]:
    c = torch.cat([a, b], 0)
    b_1 = torch.add(b, 10)
    s = torch.stack([a, b_1], 0)
    return (c, s, b_1)
