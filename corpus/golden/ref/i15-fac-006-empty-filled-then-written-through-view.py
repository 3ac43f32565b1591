# aliasfuzz ref: the functional program (no in-place op, no aliasing relied on)
# final inputs (input index: output index): {}
def program(x: Tensor) -> Tensor:
    w = torch.full([2, 3], 0.5)
    wv = w[:, 0]
    xv = x[:, 2]
    wv_1 = torch.add(wv, xv)
    w_1 = torch.select_scatter(w, wv_1, 1, 0)
    r = torch.mul(w_1, 2)
    return r
