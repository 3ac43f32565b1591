# aliasfuzz ref: the functional program (no in-place op, no aliasing relied on)
# final inputs (input index: output index): {0: 1}
def program(z: Tensor) -> Tuple[Tensor, Tensor]:
    e = z[0]
    c = torch.gt(e, 0)
    assert bool(c) == False
    e_1 = torch.add(e, 10)
    z_1 = torch.select_scatter(z, e_1, 0, 0)
    e_2 = z_1[1]
    c_1 = torch.gt(e_2, 0)
    assert bool(c_1) == True
    e_3 = torch.ge(e_2, 3)
    e_4 = e_2.copy(e_3)
    z_2 = torch.select_scatter(z_1, e_4, 0, 1)
    e_5 = z_2[2]
    c_2 = torch.gt(e_5, 0)
    assert bool(c_2) == False
    e_6 = torch.add(e_5, 10)
    z_3 = torch.select_scatter(z_2, e_6, 0, 2)
    e_7 = z_3[3]
    c_3 = torch.gt(e_7, 0)
    assert bool(c_3) == True
    e_8 = torch.ge(e_7, 3)
    e_9 = e_7.copy(e_8)
    z_4 = torch.select_scatter(z_3, e_9, 0, 3)
    e_10 = z_4[4]
    c_4 = torch.gt(e_10, 0)
    assert bool(c_4) == True
    e_11 = torch.ge(e_10, 3)
    e_12 = e_10.copy(e_11)
    z_5 = torch.select_scatter(z_4, e_12, 0, 4)
    return (z_5, z_5)
