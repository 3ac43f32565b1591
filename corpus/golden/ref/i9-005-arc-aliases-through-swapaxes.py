# aliasfuzz ref: the functional program (no in-place op, no aliasing relied on)
# final inputs (input index: output index): {0: 3}
def program(x: Tensor) -> Tuple[Tensor, Tensor, Tensor, Tensor]:
    y = torch.div(x, 8)
    s = y.swapaxes(0, 1)
    s0 = s[0]
    s0_1 = torch.asin(s0)
    s_1 = torch.select_scatter(s, s0_1, 0, 0)
    s1 = s_1[1]
    s1_1 = torch.acos(s1)
    s_2 = torch.select_scatter(s_1, s1_1, 0, 1)
    s2 = s_2[2]
    s2_1 = torch.atan(s2)
    s_3 = torch.select_scatter(s_2, s2_1, 0, 2)
    y_3 = s_3.transpose(0, 1)
    w = x.swapdims(-1, 0)
    w0 = w[3]
    w0_1 = torch.asinh(w0)
    w_1 = torch.select_scatter(w, w0_1, 0, 3)
    w1 = w_1[:, 0]
    w1_1 = torch.acosh(w1)
    w_2 = torch.select_scatter(w_1, w1_1, 1, 0)
    w2 = w_2[2]
    w2_1 = torch.atanh(w2)
    w_3 = torch.select_scatter(w_2, w2_1, 0, 2)
    x_3 = w_3.transpose(-1, 0)
    return (y_3, x_3, s_3, x_3)
