def program(x1: Tensor, i0: Tensor, x2: Tensor) -> None:
    x1.index_fill_(1, i0, x2)
    return None
