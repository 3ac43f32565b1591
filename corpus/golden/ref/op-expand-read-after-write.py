# aliasfuzz ref: the functional program (no in-place op, no aliasing relied on)
# final inputs (input index: output index): {0: 2}
def program(b: Tensor, q: Tensor) -> Tuple[Tensor, Tensor, Tensor]:
    b_1 = torch.abs(b)
    e_1 = b_1.expand([3, 4])
    r = torch.add(e_1, 1)
    f_1 = b_1.expand([4, 4])
    r2 = torch.mul(f_1, q)
    return (r, r2, b_1)
