# aliasfuzz ref: the functional program (no in-place op, no aliasing relied on)
# final inputs (input index: output index): {}
def program(x: Tensor) -> Tuple[Tensor, Tensor]:
    s = x[:, 0:-1:1]
    f = s.reshape([-1])
    f_1 = f.fill(7)
    r = torch.add(x, 1)
    return (r, f_1)
