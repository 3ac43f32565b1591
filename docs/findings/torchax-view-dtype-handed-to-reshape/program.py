def program(x: Tensor) -> None:
    v0 = x.view(torch.int32)
    return None
