def program(x0: Tensor, x1: Tensor) -> None:
    m0 = torch.gt(x0, -2)
    x0[m0] = x1
    return None
