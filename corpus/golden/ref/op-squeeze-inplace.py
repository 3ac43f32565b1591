# aliasfuzz ref: the functional program (no in-place op, no aliasing relied on)
# final inputs (input index: output index): {0: 1}
def program(x: Tensor) -> Tuple[Tensor, Tensor]:
    x_1 = x.squeeze(1)
    xt = x_1.t()
    r = torch.matmul(x_1, xt)
    return (r, x_1)
