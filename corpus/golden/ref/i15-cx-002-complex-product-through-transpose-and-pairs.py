# aliasfuzz ref: the functional program (no in-place op, no aliasing relied on)
# final inputs (input index: output index): {0: 2}
def program(x: Tensor, q: Tensor) -> Tuple[Tensor, Tensor, Tensor]:
    x_1 = x.new_zeros([2, 3, 2])
    x_2 = torch.slice_scatter(x_1, x, 0, 0, 2, 1)
    c = torch.view_as_complex(x_2)
    t = c.transpose(0, 1)
    u = t[2]
    q_1 = q.new_zeros([2])
    q_2 = torch.slice_scatter(q_1, q, 0, 0, 2, 1)
    z = torch.view_as_complex(q_2)
    u_1 = torch.mul(u, z)
    t_1 = torch.select_scatter(t, u_1, 0, 2)
    w = torch.view_as_real(t_1)
    e = w[1]
    e_1 = e.fill(5)
    w_1 = torch.select_scatter(w, e_1, 0, 1)
    t_2 = w_1.new_zeros([3, 2, 2])
    t_3 = torch.slice_scatter(t_2, w_1, 0, 0, 3, 1)
    t_4 = torch.view_as_complex(t_3)
    c_2 = t_4.transpose(0, 1)
    tmp_1 = c_2[1]
    tmp_2 = tmp_1[0:2:1]
    tmp_3 = tmp_2.fill(7.5)
    tmp_4 = torch.slice_scatter(tmp_1, tmp_3, 0, 0, 2, 1)
    c_3 = torch.select_scatter(c_2, tmp_4, 0, 1)
    k = c_3[:, 1]
    kr = torch.view_as_real(k)
    kr_1 = torch.add(kr, 1)
    k_1 = kr_1.new_zeros([2, 2])
    k_2 = torch.slice_scatter(k_1, kr_1, 0, 0, 2, 1)
    k_3 = torch.view_as_complex(k_2)
    c_4 = torch.select_scatter(c_3, k_3, 1, 1)
    x_6 = torch.view_as_real(c_4)
    s = torch.mul(x_6, 1)
    return (s, kr_1, x_6)
