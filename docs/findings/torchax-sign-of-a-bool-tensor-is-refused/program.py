def program(x: Tensor) -> None:
    x.sgn_()
    return None
