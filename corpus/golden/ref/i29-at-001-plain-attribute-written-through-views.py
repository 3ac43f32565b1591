# aliasfuzz ref: the functional program (no in-place op, no aliasing relied on)
# final inputs (input index: output index): {0: 1}
def program(cache: Tensor, x: Tensor) -> Tuple[Tensor, Tensor]:
    tmp_1 = cache[:, 1]
    tmp_2 = tmp_1.copy(x)
    cache_1 = torch.select_scatter(cache, tmp_2, 1, 1)
    w = cache_1[1:]
    w_1 = torch.mul(w, 2)
    cache_2 = torch.slice_scatter(cache_1, w_1, 0, 1, 3, 1)
    y = torch.mul(cache_2, 3)
    return (y, cache_2)
