# aliasfuzz ref: the functional program (no in-place op, no aliasing relied on)
# final inputs (input index: output index): {0: 2}
def program(x: Tensor) -> Tuple[Tensor, Tensor, Tensor]:
    m = torch.gt(x, 1)
    tmp_1 = x.new_full([], 0)
    x_1 = torch.index_put(x, [m], tmp_1, False)
    g = x_1[1:, 2]
    r = torch.add(g, 1)
    return (r, x_1, x_1)
