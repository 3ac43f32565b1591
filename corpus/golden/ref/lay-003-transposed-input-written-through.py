# aliasfuzz ref: the functional program (no in-place op, no aliasing relied on)
# final inputs (input index: output index): {1: 2}
def program(x: Tensor, w_storage: Tensor) -> Tuple[Tensor, Tensor, Tensor]:
    w = w_storage.as_strided([4, 3], [1, 4], 0)
    col = w[:, 0]
    col_1 = torch.add(col, 5)
    w_storage_1 = torch.as_strided_scatter(w_storage, col_1, [4], [1], 0)
    w_storage_2 = w_storage_1.contiguous()
    w_storage_3 = torch.clone(w_storage_2)
    w_1 = w_storage_3.as_strided([4, 3], [1, 4], 0)
    row = w_1[1]
    row_1 = row.copy(x)
    w_storage_4 = torch.as_strided_scatter(w_storage_3, row_1, [3], [4], 1)
    w_storage_5 = w_storage_4.contiguous()
    w_storage_6 = torch.clone(w_storage_5)
    w_2 = w_storage_6.as_strided([4, 3], [1, 4], 0)
    r = torch.mul(w_2, 2)
    return (r, w_2, w_storage_4)
