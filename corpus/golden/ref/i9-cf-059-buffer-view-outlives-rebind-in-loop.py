# aliasfuzz ref: the functional program (no in-place op, no aliasing relied on)
# final inputs (input index: output index): {0: 2}
def program(w: Tensor, x: Tensor) -> Tuple[Tensor, Tensor, Tensor]:
    v = w[0:2:1]
    v_1 = torch.add(v, 1)
    w_1 = torch.slice_scatter(w, v_1, 0, 0, 2, 1)
    w_2 = torch.add(w_1, x)
    v_2 = torch.add(v_1, 1)
    w_4 = torch.add(w_2, x)
    v_3 = torch.add(v_2, 1)
    w_6 = torch.add(w_4, x)
    r = torch.mul(w_6, 2)
    return (r, v_3, w_6)
