# aliasfuzz ref: the functional program (no in-place op, no aliasing relied on)
# final inputs (input index: output index): {0: 1}
def program(buf: Tensor, x: Tensor) -> Tuple[Tensor, Tensor]:
    v = buf[0:2:1]
    v_1 = v.zero()
    buf_1 = torch.slice_scatter(buf, v_1, 0, 0, 2, 1)
    d = buf_1.diagonal(0, 0, 1)
    d_1 = d.fill(7)
    buf_2 = torch.diagonal_scatter(buf_1, d_1, 0, 0, 1)
    r = torch.add(buf_2, x)
    return (r, buf_2)
