# aliasfuzz ref: the functional program (no in-place op, no aliasing relied on)
# final inputs (input index: output index): {0: 1}
def program(x: Tensor, w: Tensor) -> Tuple[Tensor, Tensor]:
    x_1 = x.unsqueeze(0)
    x0 = x_1[0]
    r = x0[0]
    wi = w[0]
    r_1 = torch.add(r, wi)
    x0_1 = torch.select_scatter(x0, r_1, 0, 0)
    x_2 = torch.select_scatter(x_1, x0_1, 0, 0)
    x0_2 = x_2[0]
    r_2 = x0_2[1]
    wi_1 = w[1]
    r_3 = torch.add(r_2, wi_1)
    x0_3 = torch.select_scatter(x0_2, r_3, 0, 1)
    x_3 = torch.select_scatter(x_2, x0_3, 0, 0)
    x0_4 = x_3[0]
    r_4 = x0_4[2]
    wi_2 = w[2]
    r_5 = torch.add(r_4, wi_2)
    x0_5 = torch.select_scatter(x0_4, r_5, 0, 2)
    x_4 = torch.select_scatter(x_3, x0_5, 0, 0)
    o = torch.mul(x_4, 2)
    return (o, x_4)
