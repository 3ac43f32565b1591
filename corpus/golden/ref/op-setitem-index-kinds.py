# aliasfuzz ref: the functional program (no in-place op, no aliasing relied on)
# final inputs (input index: output index): {0: 1}
def program(x: Tensor) -> Tuple[Tensor, Tensor]:
    tmp_1 = x[1]
    tmp_2 = tmp_1[0:6:2]
    tmp_3 = tmp_2.fill(5)
    tmp_4 = torch.slice_scatter(tmp_1, tmp_3, 0, 0, 6, 2)
    x_1 = torch.select_scatter(x, tmp_4, 0, 1)
    tmp_5 = x_1.unsqueeze(1)
    tmp_6 = tmp_5[:, :, 0]
    tmp_7 = torch.add(tmp_6, 1)
    tmp_8 = torch.select_scatter(tmp_5, tmp_7, 2, 0)
    x_2 = tmp_8.squeeze(1)
    r = torch.clone(x_2)
    return (r, x_2)
