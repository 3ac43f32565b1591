# aliasfuzz ref: the functional program (no in-place op, no aliasing relied on)
# final inputs (input index: output index): {0: 1}
def program(x: Tensor) -> Tuple[Tensor, Tensor]:
    tmp_1 = x[1:4:1]
    tmp_2 = tmp_1[:, 0]
    tmp_3 = tmp_2.fill(3)
    tmp_4 = torch.select_scatter(tmp_1, tmp_3, 1, 0)
    x_1 = torch.slice_scatter(x, tmp_4, 0, 1, 4, 1)
    tmp_5 = x_1[0]
    tmp_6 = torch.add(tmp_5, 1.5)
    x_2 = torch.select_scatter(x_1, tmp_6, 0, 0)
    d = x_2.diagonal(0, 0, 1)
    d_1 = torch.mul(d, -2)
    x_3 = torch.diagonal_scatter(x_2, d_1, 0, 0, 1)
    r = torch.add(x_3, 0.25)
    return (r, x_3)
