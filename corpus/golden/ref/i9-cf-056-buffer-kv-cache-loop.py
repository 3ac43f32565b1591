# aliasfuzz ref: the functional program (no in-place op, no aliasing relied on)
# final inputs (input index: output index): {0: 1, 2: 2}
def program(cache: Tensor, k: Tensor, scores: Tensor) -> Tuple[Tensor, Tensor, Tensor]:
    tmp_1 = cache[:, 0]
    tmp_2 = tmp_1.copy(k)
    cache_1 = torch.select_scatter(cache, tmp_2, 1, 0)
    s = torch.sum(cache_1)
    tmp_3 = scores[0]
    tmp_4 = tmp_3.copy(s)
    scores_1 = torch.select_scatter(scores, tmp_4, 0, 0)
    k_1 = torch.mul(k, 2)
    tmp_5 = cache_1[:, 1]
    tmp_6 = tmp_5.copy(k_1)
    cache_2 = torch.select_scatter(cache_1, tmp_6, 1, 1)
    s_1 = torch.sum(cache_2)
    tmp_7 = scores_1[1]
    tmp_8 = tmp_7.copy(s_1)
    scores_2 = torch.select_scatter(scores_1, tmp_8, 0, 1)
    k_2 = torch.mul(k_1, 2)
    tmp_9 = cache_2[:, 2]
    tmp_10 = tmp_9.copy(k_2)
    cache_3 = torch.select_scatter(cache_2, tmp_10, 1, 2)
    s_2 = torch.sum(cache_3)
    tmp_11 = scores_2[2]
    tmp_12 = tmp_11.copy(s_2)
    scores_3 = torch.select_scatter(scores_2, tmp_12, 0, 2)
    k_3 = torch.mul(k_2, 2)
    tmp_13 = cache_3[:, 3]
    tmp_14 = tmp_13.copy(k_3)
    cache_4 = torch.select_scatter(cache_3, tmp_14, 1, 3)
    s_3 = torch.sum(cache_4)
    tmp_15 = scores_3[3]
    tmp_16 = tmp_15.copy(s_3)
    scores_4 = torch.select_scatter(scores_3, tmp_16, 0, 3)
    return (scores_4, cache_4, scores_4)
