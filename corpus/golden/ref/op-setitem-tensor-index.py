# aliasfuzz ref: the functional program (no in-place op, no aliasing relied on)
# final inputs (input index: output index): {0: 1}
def program(x: Tensor, idx: Tensor) -> Tuple[Tensor, Tensor]:
    v = x[3]
    vc = torch.clone(v)
    tmp_1 = x[idx]
    tmp_2 = torch.add(tmp_1, vc)
    x_1 = torch.index_put(x, [idx], tmp_2, False)
    tmp_3 = x_1[1:3:1]
    tmp_4 = x_1[1:3, idx]
    tmp_5 = torch.mul(tmp_4, 2)
    tmp_6 = torch.index_put(tmp_3, [None, idx], tmp_5, False)
    x_2 = torch.slice_scatter(x_1, tmp_6, 0, 1, 3, 1)
    tmp_7 = x_2[0]
    tmp_8 = torch.sub(tmp_7, 1)
    x_3 = torch.select_scatter(x_2, tmp_8, 0, 0)
    return (x_3, x_3)
