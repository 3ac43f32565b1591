# aliasfuzz ref: the functional program (no in-place op, no aliasing relied on)
# final inputs (input index: output index): {0: 1}
def program(x: Tensor) -> Tuple[Tensor, Tensor]:
    x_1 = torch.add(x, 3)
    r = torch.sum(x_1)
    return (r, x_1)
