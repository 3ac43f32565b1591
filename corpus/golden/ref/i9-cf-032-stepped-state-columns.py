# aliasfuzz ref: the functional program (no in-place op, no aliasing relied on)
# final inputs (input index: output index): {0: 1}
def program(buf: Tensor, k: Tensor) -> Tuple[Tensor, Tensor]:
    state = buf[:, 0:6:2]
    tmp_1 = state[:, 0]
    tmp_2 = tmp_1.copy(k)
    state_1 = torch.select_scatter(state, tmp_2, 1, 0)
    buf_1 = torch.slice_scatter(buf, state_1, 1, 0, 6, 2)
    k_1 = torch.mul(k, -2)
    tmp_3 = state_1[:, 1]
    tmp_4 = tmp_3.copy(k_1)
    state_2 = torch.select_scatter(state_1, tmp_4, 1, 1)
    buf_2 = torch.slice_scatter(buf_1, state_2, 1, 0, 6, 2)
    k_2 = torch.mul(k_1, -2)
    tmp_5 = state_2[:, 2]
    tmp_6 = tmp_5.copy(k_2)
    state_3 = torch.select_scatter(state_2, tmp_6, 1, 2)
    buf_3 = torch.slice_scatter(buf_2, state_3, 1, 0, 6, 2)
    return (buf_3, buf_3)
