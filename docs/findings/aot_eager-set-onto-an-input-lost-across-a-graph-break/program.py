def program(x1: Tensor, x3: Tensor, x4: Tensor) -> None:
    x3.relu_()
    v4 = x4.silu()
    v4.set_(x3)
    if bool(x1):
        v4[2:4] %= 2
    return None
