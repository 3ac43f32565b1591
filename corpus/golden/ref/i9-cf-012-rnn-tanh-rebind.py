# aliasfuzz ref: the functional program (no in-place op, no aliasing relied on)
# final inputs (input index: output index): {}
def program(x: Tensor) -> Tensor:
    x0 = x[0]
    h = torch.clone(x0)
    t = torch.add(h, x0)
    h_1 = torch.tanh(t)
    xi = x[1]
    t_1 = torch.add(h_1, xi)
    h_2 = torch.tanh(t_1)
    xi_1 = x[2]
    t_2 = torch.add(h_2, xi_1)
    h_3 = torch.tanh(t_2)
    xi_2 = x[3]
    t_3 = torch.add(h_3, xi_2)
    h_4 = torch.tanh(t_3)
    xi_3 = x[4]
    t_4 = torch.add(h_4, xi_3)
    h_5 = torch.tanh(t_4)
    return h_5
