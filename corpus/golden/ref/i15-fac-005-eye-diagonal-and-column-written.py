# aliasfuzz ref: the functional program (no in-place op, no aliasing relied on)
# final inputs (input index: output index): {}
def program(x: Tensor) -> Tuple[Tensor, Tensor]:
    e = torch.eye(3)
    ed = e.diagonal(0, 0, 1)
    ed_1 = torch.mul(ed, x)
    e_1 = torch.diagonal_scatter(e, ed_1, 0, 0, 1)
    f = torch.eye(2, 3)
    tmp_1 = f[:, 1]
    tmp_2 = tmp_1.fill(7)
    f_1 = torch.select_scatter(f, tmp_2, 1, 1)
    r = torch.add(e_1, 1)
    return (r, f_1)
