# aliasfuzz ref: the functional program (no in-place op, no aliasing relied on)
# final inputs (input index: output index): {0: 7}
def program(x: Tensor) -> Tuple[Tensor, Tensor, Tensor, Tensor, Tensor, Tensor, Tensor, Tensor]:
    v = x[1:3:1]
    v_1 = torch.mul(v, 2)
    x_1 = torch.slice_scatter(x, v_1, 0, 1, 3, 1)
    s = torch.sum(x_1, [0], True)
    mn = torch.mean(x_1, [0, -1], False)
    a = torch.amax(x_1, [1], True)
    b = torch.amin(v_1, [0], False)
    p = torch.prod(v_1, 1, False)
    g = torch.gt(x_1, 3)
    q = torch.any(g, 0, False)
    w = torch.all(g, -1, True)
    return (s, mn, a, b, p, q, w, x_1)
