def program(x: Tensor, y: Tensor) -> Tensor:
    v0 = x.expand_as(x)
    if bool(y):
        pass
    else:
        v0.addcmul_(x, x, value=1)
    return x
