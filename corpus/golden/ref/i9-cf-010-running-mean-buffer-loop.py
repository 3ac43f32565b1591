# aliasfuzz ref: the functional program (no in-place op, no aliasing relied on)
# final inputs (input index: output index): {0: 1}
def program(rm: Tensor, x: Tensor) -> Tuple[Tensor, Tensor]:
    rm_1 = torch.mul(rm, 0.5)
    xi = x[0]
    rm_2 = torch.add(rm_1, xi)
    rm_3 = torch.mul(rm_2, 0.5)
    xi_1 = x[1]
    rm_4 = torch.add(rm_3, xi_1)
    rm_5 = torch.mul(rm_4, 0.5)
    xi_2 = x[2]
    rm_6 = torch.add(rm_5, xi_2)
    rm_7 = torch.mul(rm_6, 0.5)
    xi_3 = x[3]
    rm_8 = torch.add(rm_7, xi_3)
    r = torch.mul(rm_8, 2)
    return (r, rm_8)
