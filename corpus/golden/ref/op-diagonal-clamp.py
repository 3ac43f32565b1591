# aliasfuzz ref: the functional program (no in-place op, no aliasing relied on)
# final inputs (input index: output index): {0: 1}
def program(q: Tensor) -> Tuple[Tensor, Tensor]:
    d = q.diagonal(0, 0, 1)
    d_1 = torch.clamp(d, -1, 2)
    q_1 = torch.diagonal_scatter(q, d_1, 0, 0, 1)
    r = torch.mul(q_1, 3)
    return (r, q_1)
