def program(x0: Tensor, x1: Tensor) -> None:
    m0 = torch.gt(x1, 1)
    x0[m0] /= 0.25
    return None
