# aliasfuzz ref: the functional program (no in-place op, no aliasing relied on)
# final inputs (input index: output index): {0: 1}
def program(x: Tensor) -> Tuple[Tensor, Tensor]:
    x_1 = x.transpose(0, 1)
    r = x_1[0]
    r2 = torch.clone(r)
    return (r2, x_1)
