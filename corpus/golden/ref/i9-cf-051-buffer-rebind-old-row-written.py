# aliasfuzz ref: the functional program (no in-place op, no aliasing relied on)
# final inputs (input index: output index): {0: 2}
def program(w: Tensor) -> Tuple[Tensor, Tensor, Tensor]:
    old = w[0]
    w_1 = torch.add(w, 1)
    old_1 = torch.mul(old, 2)
    r = torch.mul(w_1, 3)
    return (r, old_1, w_1)
