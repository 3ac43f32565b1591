# aliasfuzz ref: the functional program (no in-place op, no aliasing relied on)
# final inputs (input index: output index): {0: 2}
def program(x: Tensor) -> Tuple[Tensor, Tensor, Tensor]:
    tmp_1 = x[1]
    tmp_2 = tmp_1.fill(9)
    x_1 = torch.select_scatter(x, tmp_2, 0, 1)
    h = x_1.to(torch.float16)
    h_1 = torch.mul(h, 0.5)
    r = torch.add(x_1, 1)
    return (r, h_1, x_1)
