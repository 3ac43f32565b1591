def program(x: Tensor, y: Tensor) -> Tensor:
    x.remainder_(2)
    return y
