# aliasfuzz ref: the functional program (no in-place op, no aliasing relied on)
# final inputs (input index: output index): {0: 1}
def program(x: Tensor, idx: Tensor) -> Tuple[Tensor, Tensor]:
    s = x[:, 0:4:1]
    val = torch.relu(s)
    v2 = val[1]
    s_1 = torch.index_put(s, [idx], v2, True)
    x_1 = torch.slice_scatter(x, s_1, 1, 0, 4, 1)
    return (x_1, x_1)
