# aliasfuzz ref: the functional program (no in-place op, no aliasing relied on)
# final inputs (input index: output index): {0: 2}
def program(w: Tensor) -> Tuple[Tensor, Tensor, Tensor]:
    w_1 = torch.add(w, 1)
    w_3 = torch.add(w_1, 1)
    w_5 = torch.add(w_3, 1)
    w_6 = torch.add(w_3, 10)
    r = torch.mul(w_5, 2)
    return (r, w_6, w_5)
