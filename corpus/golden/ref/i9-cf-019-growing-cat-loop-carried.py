# aliasfuzz ref: the functional program (no in-place op, no aliasing relied on)
# final inputs (input index: output index): {0: 1}
def program(a: Tensor, b: Tensor) -> Tuple[Tensor, Tensor]:
    acc = torch.clone(b)
    a_1 = torch.add(a, b)
    acc_1 = torch.cat([acc, a_1], 0)
    a_2 = torch.add(a_1, b)
    acc_2 = torch.cat([acc_1, a_2], 0)
    a_3 = torch.add(a_2, b)
    acc_3 = torch.cat([acc_2, a_3], 0)
    return (acc_3, a_3)
