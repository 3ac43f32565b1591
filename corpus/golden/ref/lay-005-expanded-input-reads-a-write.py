# aliasfuzz ref: the functional program (no in-place op, no aliasing relied on)
# final inputs (input index: output index): {0: 3}
def program(row_storage: Tensor) -> Tuple[Tensor, Tensor, Tensor, Tensor]:
    r = row_storage.as_strided([4], [1], 0)
    r_1 = torch.add(r, 7)
    row_storage_1 = torch.as_strided_scatter(row_storage, r_1, [4], [1], 0)
    row_storage_2 = row_storage_1.contiguous()
    row_storage_3 = torch.clone(row_storage_2)
    e_1 = row_storage_3.as_strided([3, 4], [0, 1], 0)
    s = torch.mul(e_1, 2)
    r_final = row_storage_3.as_strided([4], [1], 0)
    return (s, e_1, r_final, row_storage_1)
