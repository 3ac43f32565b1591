# aliasfuzz ref: the functional program (no in-place op, no aliasing relied on)
# final inputs (input index: output index): {}
def program(x1: Tensor, x2: Tensor) -> Tensor:
    v1 = x1.copy(x2)
    return v1
