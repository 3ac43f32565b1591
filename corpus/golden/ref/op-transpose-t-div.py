# aliasfuzz ref: the functional program (no in-place op, no aliasing relied on)
# final inputs (input index: output index): {0: 2}
def program(q: Tensor) -> Tuple[Tensor, Tensor, Tensor]:
    a = q.transpose(0, 1)
    b = a.t()
    b_1 = torch.div(b, 2)
    a_1 = b_1.t()
    q_1 = a_1.transpose(0, 1)
    r = torch.add(a_1, 0)
    return (r, q_1, q_1)
