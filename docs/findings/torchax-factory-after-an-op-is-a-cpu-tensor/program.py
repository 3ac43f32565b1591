def program(x: Tensor) -> None:
    v0 = torch.add(x, 1)
    v1 = torch.eye(1)
    v1.add_(x)
    return None
