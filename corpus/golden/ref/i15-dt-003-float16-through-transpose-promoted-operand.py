# aliasfuzz ref: the functional program (no in-place op, no aliasing relied on)
# final inputs (input index: output index): {0: 2}
def program(h: Tensor, w: Tensor) -> Tuple[Tensor, Tensor, Tensor]:
    t = h.t()
    t_1 = torch.mul(t, 0.5)
    c = t_1[1]
    c_1 = torch.add(c, w)
    c_2 = c.copy(c_1)
    t_2 = torch.select_scatter(t_1, c_2, 0, 1)
    h_2 = t_2.t()
    r = torch.mul(h_2, 2)
    return (r, c_2, h_2)
