# aliasfuzz ref: the functional program (no in-place op, no aliasing relied on)
# final inputs (input index: output index): {0: 2}
def program(x: Tensor) -> Tuple[Tensor, Tensor, Tensor]:
    n = x.narrow(1, 1, 3)
    s = n[2]
    s_1 = torch.add(s, 10)
    n_1 = torch.select_scatter(n, s_1, 0, 2)
    x_1 = torch.slice_scatter(x, n_1, 1, 1, 4, 1)
    r = torch.mul(x_1, 1)
    return (r, n_1, x_1)
