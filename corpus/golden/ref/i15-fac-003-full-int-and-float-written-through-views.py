# aliasfuzz ref: the functional program (no in-place op, no aliasing relied on)
# final inputs (input index: output index): {}
def program(k: Tensor) -> Tuple[Tensor, Tensor, Tensor]:
    f = torch.full([4], 2)
    fv = f.narrow(0, 1, 2)
    fv_1 = torch.mul(fv, k)
    f_1 = torch.slice_scatter(f, fv_1, 0, 1, 3, 1)
    g = torch.full([2, 2], 1.5)
    gt = g.t()
    gc = gt[1]
    gc_1 = torch.sub(gc, 0.5)
    gt_1 = torch.select_scatter(gt, gc_1, 0, 1)
    g_1 = gt_1.t()
    r = torch.add(g_1, fv_1)
    return (f_1, g_1, r)
