def program(x: Tensor, y: Tensor, z: Tensor) -> Tensor:
    v0 = torch.clone(x)
    x.index_put_([y], z, False)
    return v0
