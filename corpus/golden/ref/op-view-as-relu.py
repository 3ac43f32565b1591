# aliasfuzz ref: the functional program (no in-place op, no aliasing relied on)
# final inputs (input index: output index): {0: 1}
def program(x: Tensor, y: Tensor) -> Tuple[Tensor, Tensor]:
    x_1 = torch.relu(x)
    r = torch.add(x_1, y)
    return (r, x_1)
