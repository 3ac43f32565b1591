# aliasfuzz ref: the functional program (no in-place op, no aliasing relied on)
# final inputs (input index: output index): {0: 1}
def program(x: Tensor) -> Tuple[Tensor, Tensor]:
    s = x[1:3:1]
    f = s.reshape([-1])
    f_1 = f.fill(7)
    s_1 = f_1.reshape([2, 5])
    x_1 = torch.slice_scatter(x, s_1, 0, 1, 3, 1)
    r = torch.add(x_1, 1)
    return (r, x_1)
