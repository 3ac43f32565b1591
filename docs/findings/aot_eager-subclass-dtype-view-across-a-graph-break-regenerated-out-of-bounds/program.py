def program(x: Tensor, y: Tensor) -> None:
    v0 = x.view(torch.int32)
    if bool(y):
        pass
    else:
        v0.add_(1)
    return None
