def program(x0: Tensor, x1: Tensor, x2: Tensor, i0: Tensor, x3: Tensor) -> None:
    x0[i0, ..., None] += 1
    return None
