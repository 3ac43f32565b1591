# aliasfuzz ref: the functional program (no in-place op, no aliasing relied on)
# final inputs (input index: output index): {0: 1}
def program(x: Tensor, k: Tensor) -> Tuple[Tensor, Tensor]:
    y = x.narrow(1, 1, 4)
    y_1 = torch.mul(y, 2)
    x_1 = torch.slice_scatter(x, y_1, 1, 1, 5, 1)
    s = x_1[2]
    s_1 = s.zero()
    x_2 = torch.select_scatter(x_1, s_1, 0, 2)
    w = x_2.narrow(1, 2, 2)
    w_1 = torch.sub(w, 6)
    x_3 = torch.slice_scatter(x_2, w_1, 1, 2, 4, 1)
    r = torch.neg(x_3)
    return (r, x_3)
