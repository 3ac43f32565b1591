# aliasfuzz ref: the functional program (no in-place op, no aliasing relied on)
# final inputs (input index: output index): {0: 1}
def program(x: Tensor) -> Tuple[Tensor, Tensor]:
    u = x.unflatten(1, [1, 6])
    s = u.squeeze(1)
    w = s.unsqueeze(0)
    w_1 = torch.mul(w, w)
    x_1 = w_1.reshape([4, 6])
    r = torch.sum(x_1)
    return (r, x_1)
