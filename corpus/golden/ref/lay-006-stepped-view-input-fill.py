# aliasfuzz ref: the functional program (no in-place op, no aliasing relied on)
# final inputs (input index: output index): {0: 4}
def program(a_storage: Tensor) -> Tuple[Tensor, Tensor, Tensor, Tensor, Tensor]:
    odd = a_storage.as_strided([3, 3], [2, 6], 1)
    v = odd[2]
    v_1 = v.fill(100)
    a_storage_1 = torch.as_strided_scatter(a_storage, v_1, [3], [6], 5)
    a_storage_2 = a_storage_1.contiguous()
    a_storage_3 = torch.clone(a_storage_2)
    a_1 = a_storage_3.as_strided([3, 6], [6, 1], 0)
    s = torch.sum(a_1)
    odd_final = a_storage_3.as_strided([3, 3], [2, 6], 1)
    return (s, odd_final, a_1, odd_final, a_storage_1)
