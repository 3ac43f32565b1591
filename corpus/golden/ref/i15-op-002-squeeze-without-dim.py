# aliasfuzz ref: the functional program (no in-place op, no aliasing relied on)
# final inputs (input index: output index): {0: 2, 1: 3}
def program(x: Tensor, y: Tensor) -> Tuple[Tensor, Tensor, Tensor, Tensor]:
    x_1 = x.squeeze()
    r = torch.mul(x_1, 2)
    t = y.squeeze()
    t_1 = torch.neg(t)
    y_1 = t_1.reshape([2, 1, 3])
    u = torch.add(y_1, 1)
    return (r, u, x_1, y_1)
