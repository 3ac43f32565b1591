def program(x: Tensor, y: Tensor) -> Tensor:
    x.copy_(y)
    return x
