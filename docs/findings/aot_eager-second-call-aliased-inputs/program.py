def program(x: Tensor, y: Tensor) -> None:
    torch.celu_(x, 0.5)
    y.add_(1)
    return None
