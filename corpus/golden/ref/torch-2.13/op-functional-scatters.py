# aliasfuzz ref: the functional program (no in-place op, no aliasing relied on)
# final inputs (input index: output index): {}
def program(q: Tensor, idx: Tensor) -> Tensor:
    r0 = q[0]
    a = torch.slice_scatter(q, q, 0, 0, 4, 1)
    b = torch.select_scatter(a, r0, 1, 2)
    dg = q.diagonal(0, 0, 1)
    c = torch.diagonal_scatter(b, dg, 0, 0, 1)
    st = q.as_strided([2, 2], [4, 1], 1)
    c_1 = c.contiguous()
    d = torch.as_strided_scatter(c_1, st, [2, 2], [4, 1], 5)
    e = d.fill(2)
    f = e.zero()
    g = f.copy(d)
    m = torch.gt(g, 0)
    h = torch.masked_fill(g, m, 1)
    rows = q[0:2:1]
    i = torch.index_put(h, [idx], rows, False)
    j = torch.index_add(i, 0, idx, rows)
    ix2 = idx[1:2:1]
    ixs = ix2.unsqueeze(0)
    k = torch.scatter(j, 1, ixs, 7)
    l = torch.sub(k, 1)
    n = torch.relu(l)
    return n
