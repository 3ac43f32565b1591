# aliasfuzz ref: the functional program (no in-place op, no aliasing relied on)
# final inputs (input index: output index): {0: 2}
def program(a: Tensor, b: Tensor) -> Tuple[Tensor, Tensor, Tensor]:
    a_1 = torch.add(a, 1)
    a_2 = torch.add(a_1, 1)
    a_3 = torch.add(a_2, 1)
    c_3 = torch.cat([a_3, b], 0)
    return (c_3, a_3, a_3)
