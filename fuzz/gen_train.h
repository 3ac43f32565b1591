/* gen_train.h - training programs in generated programs (issue 33, docs/training.md). */
#ifndef GEN_TRAIN_H
#define GEN_TRAIN_H

#include "../harness/ir.h"
#include "gen.h"

/* With chance pol->p_train (drawn from seed), makes p (a valid, finished program) a training program
 * in place: "train": true, a loss weight per output (1, 2 or 3, drawn from seed), and of its
 * float32/float64 inputs without a layout, each in turn, the data inputs made leaves that require
 * grad and the module buffers made nn.Parameters, each kept only where eager (autograd's in-place
 * rules, eager.c, and the backward) accepts the program: valid by that check, one eager run per
 * candidate and fix. Autograd's rules shape the body: a write eager refuses (into a leaf that
 * requires grad, a view of one, or a view made under no_grad) is put under `with
 * torch.no_grad():` or routed through `t.detach()` made right before it (one of the two drawn from
 * seed; up to 3 fixes per input). Then, each kept only where eager accepts it and some input still gets a gradient:
 * with chance GEN_TRAIN_P_UPDATE a parameter updated in place under no_grad at the top of the
 * forward (`self.w.mul_(0.5)`), and with chance GEN_TRAIN_P_WRAP one or two top-level statements
 * put under no_grad (views made there, writes autograd does not see), and with chance
 * GEN_TRAIN_P_STATE_READ module state written in place at the top of the forward and read at once
 * with an input that requires grad (`self.b.mul_(2)`, a parameter's under no_grad; then `st =
 * torch.mul(y, self.b)`, a new output): where the program has no float module state, another input
 * that requires grad becomes a buffer or a parameter for it (a parameter written under no_grad or
 * through `self.w.data`, drawn, in both edits), and with chance GEN_TRAIN_P_DATA one `.detach()`
 * made `.data` (after eager accepted the program with `.detach()`, whose writes autograd's
 * saved-tensor check sees: a write through `.data` never changes a tensor the backward saved),
 * and with chance GEN_TRAIN_P_OUT_VIEWS two views of one intermediate (`h.unsqueeze(0)`,
 * `h.view_as(h)`), or it and its `.detach()`, returned as new outputs at the end, and with
 * chance GEN_TRAIN_P_GRAD_MODE a `torch.set_grad_enabled(False)` before a top-level statement,
 * left behind for the caller or (drawn) undone by a `torch.set_grad_enabled(True)` after a later one.
 * First of all, with chance GEN_TRAIN_P_VIEW_INPUT, a data input made a view of a new hidden base
 * that requires grad (the caller's leaf; the input views its clone, a non-leaf the program may
 * write); a hidden base the generator made is made such a leaf too where eager accepts it.
 * Returns 1 when p became a training program; 0 when the draw said no, or no candidate was kept or none got a gradient (p
 * unchanged). docs/training.md. */
#define GEN_TRAIN_P_UPDATE 0.3 /* the GEN_TRAIN_P_ chances below are the defaults of the policy's
                                train_state_read, train_view_input and train_data (gen.h) */
#define GEN_TRAIN_P_WRAP 0.3
#define GEN_TRAIN_P_STATE_READ 0.35
#define GEN_TRAIN_P_DATA 0.5
#define GEN_TRAIN_P_VIEW_INPUT 0.25
#define GEN_TRAIN_P_OUT_VIEWS 0.4 /* the policy's train_out_views */
#define GEN_TRAIN_P_GRAD_MODE 0.15 /* the policy's train_grad_mode */
int gen_train(ir_program *p, uint64_t seed, const gen_policy *pol);

#endif
