# aliasfuzz ref: the functional program (no in-place op, no aliasing relied on)
# final inputs (input index: output index): {0: 1, 1: 2}
def program(a: Tensor, b: Tensor, x: Tensor) -> Tuple[Tensor, Tensor, Tensor]:
    a_1 = torch.add(a, x)
    b_1 = torch.add(b, x)
    b_2 = torch.mul(b_1, 2)
    b_3 = torch.add(b_1, 100)
    c = torch.cat([a_1, b_3], 0)
    return (c, a_1, b_2)
