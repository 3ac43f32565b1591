def program(x: Tensor, y: Tensor) -> Tensor:
    v0 = x.detach()
    x.add_(y)
    return v0
