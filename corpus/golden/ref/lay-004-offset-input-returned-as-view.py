# aliasfuzz ref: the functional program (no in-place op, no aliasing relied on)
# final inputs (input index: output index): {0: 3}
def program(x_storage: Tensor) -> Tuple[Tensor, Tensor, Tensor, Tensor]:
    x = x_storage.as_strided([3, 4], [4, 1], 5)
    y = x[1]
    y_1 = torch.mul(y, -1)
    x_storage_1 = torch.as_strided_scatter(x_storage, y_1, [4], [1], 9)
    x_storage_2 = x_storage_1.contiguous()
    x_storage_3 = torch.clone(x_storage_2)
    x_1 = x_storage_3.as_strided([3, 4], [4, 1], 5)
    z = x_1[:, 1:3:1]
    y_2 = x_1[1]
    return (y_2, z, x_1, x_storage_1)
