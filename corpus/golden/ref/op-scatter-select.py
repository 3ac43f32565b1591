# aliasfuzz ref: the functional program (no in-place op, no aliasing relied on)
# final inputs (input index: output index): {0: 1}
def program(x: Tensor, ix: Tensor) -> Tuple[Tensor, Tensor]:
    row = x[1]
    row_1 = torch.scatter(row, 0, ix, 100)
    x_1 = torch.select_scatter(x, row_1, 0, 1)
    r = torch.mean(x_1)
    return (r, x_1)
