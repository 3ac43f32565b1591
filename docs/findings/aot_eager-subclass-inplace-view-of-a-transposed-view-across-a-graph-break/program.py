def program(x: Tensor, y: Tensor) -> None:
    v0 = x.transpose(0, 1)
    if bool(y):
        pass
    else:
        v0.unsqueeze_(0)
    return None
