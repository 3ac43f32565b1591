# aliasfuzz ref: the functional program (no in-place op, no aliasing relied on)
# final inputs (input index: output index): {0: 1}
def program(x: Tensor) -> Tuple[Tensor, Tensor]:
    tmp_1 = x[0:5:1]
    tmp_2 = tmp_1.fill(0)
    x_1 = torch.slice_scatter(x, tmp_2, 0, 0, 5, 1)
    r = torch.mul(x_1, 2)
    return (r, x_1)
