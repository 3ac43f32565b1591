# aliasfuzz ref: the functional program (no in-place op, no aliasing relied on)
# final inputs (input index: output index): {}
def program(x: Tensor) -> Tensor:
    h0 = torch.clone(x)
    h1 = torch.mul(x, 2)
    h0_1 = torch.add(h0, 1)
    h1_1 = torch.add(h1, 1)
    c = torch.cat([h0_1, h1_1], 0)
    return c
