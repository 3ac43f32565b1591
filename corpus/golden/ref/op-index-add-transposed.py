# aliasfuzz ref: the functional program (no in-place op, no aliasing relied on)
# final inputs (input index: output index): {0: 2}
def program(x: Tensor, idx: Tensor) -> Tuple[Tensor, Tensor, Tensor]:
    t0 = x.t()
    src = t0[:, 0:2:1]
    sc = torch.clone(src)
    t0_1 = torch.index_add(t0, 1, idx, sc)
    x_1 = t0_1.t()
    return (x_1, t0_1, x_1)
