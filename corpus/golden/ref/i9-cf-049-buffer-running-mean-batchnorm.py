# aliasfuzz ref: the functional program (no in-place op, no aliasing relied on)
# final inputs (input index: output index): {0: 1}
def program(running_mean: Tensor, x: Tensor) -> Tuple[Tensor, Tensor]:
    w = x.new_full([1, 4], 0.25)
    mm = torch.matmul(w, x)
    m = mm[0]
    m1 = torch.mul(m, 0.1)
    running_mean_1 = torch.mul(running_mean, 0.9)
    running_mean_2 = torch.add(running_mean_1, m1)
    y = torch.sub(x, running_mean_2)
    return (y, running_mean_2)
