# aliasfuzz ref: the functional program (no in-place op, no aliasing relied on)
# final inputs (input index: output index): {}
def program(x: Tensor) -> Tensor:
    c = torch.mul(x, 2)
    c_1 = c.t()
    s = c_1[1]
    s_1 = s.fill(0)
    c_2 = torch.select_scatter(c_1, s_1, 0, 1)
    return c_2
