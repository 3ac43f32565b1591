# aliasfuzz ref: the functional program (no in-place op, no aliasing relied on)
# final inputs (input index: output index): {0: 1}
def program(cache: Tensor, k: Tensor) -> Tuple[Tensor, Tensor]:
    tmp_1 = cache[:, 0]
    tmp_2 = tmp_1.copy(k)
    cache_1 = torch.select_scatter(cache, tmp_2, 1, 0)
    k_1 = torch.add(k, 1)
    tmp_3 = cache_1[:, 1]
    tmp_4 = tmp_3.copy(k_1)
    cache_2 = torch.select_scatter(cache_1, tmp_4, 1, 1)
    k_2 = torch.add(k_1, 1)
    tmp_5 = cache_2[:, 2]
    tmp_6 = tmp_5.copy(k_2)
    cache_3 = torch.select_scatter(cache_2, tmp_6, 1, 2)
    k_3 = torch.add(k_2, 1)
    tmp_7 = cache_3[:, 3]
    tmp_8 = tmp_7.copy(k_3)
    cache_4 = torch.select_scatter(cache_3, tmp_8, 1, 3)
    k_4 = torch.add(k_3, 1)
    tmp_9 = cache_4[:, 4]
    tmp_10 = tmp_9.copy(k_4)
    cache_5 = torch.select_scatter(cache_4, tmp_10, 1, 4)
    return (cache_5, cache_5)
