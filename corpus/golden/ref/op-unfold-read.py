# aliasfuzz ref: the functional program (no in-place op, no aliasing relied on)
# final inputs (input index: output index): {0: 2}
def program(x: Tensor) -> Tuple[Tensor, Tensor, Tensor]:
    c = x[0]
    c_1 = c.zero()
    x_1 = torch.select_scatter(x, c_1, 0, 0)
    u_1 = x_1.unfold(1, 2, 2)
    r = torch.sum(u_1)
    return (r, u_1, x_1)
