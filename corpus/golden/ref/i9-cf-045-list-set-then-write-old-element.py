# aliasfuzz ref: the functional program (no in-place op, no aliasing relied on)
# final inputs (input index: output index): {1: 2}
def program(a: Tensor, b: Tensor, u: Tensor) -> Tuple[Tensor, Tensor, Tensor]:
    b_1 = torch.add(b, 10)
    r = torch.mul(u, 2)
    s = torch.stack([a, u], 0)
    return (r, s, b_1)
