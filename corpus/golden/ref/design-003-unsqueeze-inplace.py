# aliasfuzz ref: the functional program (no in-place op, no aliasing relied on)
# final inputs (input index: output index): {0: 1}
def program(x: Tensor) -> Tuple[Tensor, Tensor]:
    x_1 = x.unsqueeze(2)
    r = torch.mul(x_1, 2)
    return (r, x_1)
