# aliasfuzz ref: the functional program (no in-place op, no aliasing relied on)
# final inputs (input index: output index): {0: 3}
def program(x: Tensor, y: Tensor) -> Tuple[Tensor, Tensor, Tensor, Tensor]:
    x_1 = x.swapaxes(0, 1)
    x0 = x_1[0]
    x0_1 = torch.mul(x0, 10)
    x_2 = torch.select_scatter(x_1, x0_1, 0, 0)
    s = y[1]
    s_1 = s.swapdims(0, -1)
    r = torch.add(s_1, 1)
    c = torch.clone(y)
    mem_1 = c.contiguous()
    mem_2 = torch.clone(mem_1)
    c_1 = mem_2.as_strided([2, 2], [12, 1], 4)
    c_2 = c_1.fill(5)
    tmp_2 = torch.as_strided_scatter(mem_2, c_2, [2, 2], [12, 1], 4)
    mem_3 = tmp_2.contiguous()
    mem_4 = torch.clone(mem_3)
    c_3 = mem_4.as_strided([2, 2], [12, 1], 4)
    f = c_3.flatten(0, 1)
    return (x_2, r, f, x_2)
