# aliasfuzz ref: the functional program (no in-place op, no aliasing relied on)
# final inputs (input index: output index): {0: 2}
def program(x: Tensor) -> Tuple[Tensor, Tensor, Tensor]:
    v = x[0]
    v_1 = torch.add(v, 1)
    x_1 = torch.select_scatter(x, v_1, 0, 0)
    v_2 = torch.add(v_1, 1)
    x_2 = torch.select_scatter(x_1, v_2, 0, 0)
    v_3 = x_2[1]
    v_4 = torch.add(v_3, 1)
    x_3 = torch.select_scatter(x_2, v_4, 0, 1)
    v_5 = x_3[2]
    v_6 = torch.mul(v_5, 2)
    x_4 = torch.select_scatter(x_3, v_6, 0, 2)
    return (x_4, v_6, x_4)
