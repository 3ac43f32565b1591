# aliasfuzz ref: the functional program (no in-place op, no aliasing relied on)
# final inputs (input index: output index): {0: 1, 1: 2}
def program(running_mean: Tensor, running_var: Tensor, weight: Tensor, bias: Tensor, x: Tensor) -> Tuple[Tensor, Tensor, Tensor]:
    mean_1 = torch.mean(x, [0, 2], False)
    running_mean_1 = torch.lerp(running_mean, mean_1, 0.1)
    var_1 = torch.var(x, [0, 2], True, False)
    running_var_1 = torch.lerp(running_var, var_1, 0.1)
    y = torch.batch_norm(x, weight, bias, None, None, True, 0.1, 0.5, False)
    m = running_mean_1.unsqueeze(1)
    z = torch.sub(y, m)
    return (z, running_mean_1, running_var_1)
