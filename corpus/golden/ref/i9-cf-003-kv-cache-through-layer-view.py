# aliasfuzz ref: the functional program (no in-place op, no aliasing relied on)
# final inputs (input index: output index): {0: 2, 1: 3}
def program(cache: Tensor, k: Tensor) -> Tuple[Tensor, Tensor, Tensor, Tensor]:
    layer = cache[1]
    tmp_1 = layer[:, 0]
    tmp_2 = tmp_1.copy(k)
    layer_1 = torch.select_scatter(layer, tmp_2, 1, 0)
    cache_1 = torch.select_scatter(cache, layer_1, 0, 1)
    k_1 = torch.mul(k, 2)
    tmp_3 = layer_1[:, 1]
    tmp_4 = tmp_3.copy(k_1)
    layer_2 = torch.select_scatter(layer_1, tmp_4, 1, 1)
    cache_2 = torch.select_scatter(cache_1, layer_2, 0, 1)
    k_2 = torch.mul(k_1, 2)
    tmp_5 = layer_2[:, 2]
    tmp_6 = tmp_5.copy(k_2)
    layer_3 = torch.select_scatter(layer_2, tmp_6, 1, 2)
    cache_3 = torch.select_scatter(cache_2, layer_3, 0, 1)
    k_3 = torch.mul(k_2, 2)
    tmp_7 = layer_3[:, 3]
    tmp_8 = tmp_7.copy(k_3)
    layer_4 = torch.select_scatter(layer_3, tmp_8, 1, 3)
    cache_4 = torch.select_scatter(cache_3, layer_4, 0, 1)
    k_4 = torch.mul(k_3, 2)
    r = torch.sum(layer_4)
    return (cache_4, r, cache_4, k_4)
