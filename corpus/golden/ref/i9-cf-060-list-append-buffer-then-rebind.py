# aliasfuzz ref: the functional program (no in-place op, no aliasing relied on)
# final inputs (input index: output index): {0: 1}
def program(w: Tensor, x: Tensor) -> Tuple[Tensor, Tensor]:
    w_1 = torch.add(w, 1)
    w_2 = torch.add(w_1, 1)
    w_3 = torch.add(w_2, 1)
    w_4 = torch.mul(w, 10)
    s = torch.stack([x, w_4, w_1, w_2], 0)
    return (s, w_3)
