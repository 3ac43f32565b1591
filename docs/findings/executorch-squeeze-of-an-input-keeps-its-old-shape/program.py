def program(x: Tensor) -> None:
    x.squeeze_(0)
    x.add_(1)
    return None
