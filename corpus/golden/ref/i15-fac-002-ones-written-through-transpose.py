# aliasfuzz ref: the functional program (no in-place op, no aliasing relied on)
# final inputs (input index: output index): {}
def program(x: Tensor) -> Tensor:
    o = torch.ones([2, 3])
    ot = o.t()
    ot_1 = torch.mul(ot, x)
    o_1 = ot_1.t()
    r = torch.add(o_1, 1)
    return r
