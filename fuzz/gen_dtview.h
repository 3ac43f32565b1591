/* gen_dtview.h - dtype views read back in another width in generated programs (issue 29). */
#ifndef GEN_DTVIEW_H
#define GEN_DTVIEW_H

#include "../harness/ir.h"

/* A copy of p (a valid, finished program) in which a top-level dtype view `v = x.view(d)` is, with
 * chance p_back each (drawn from seed), viewed again right after it in another dtype, `w =
 * v.view(d2)`, and w made an output: the reverse direction first (d2 = x's dtype: int32 -> int64,
 * float16 -> float32, uint8 -> bool), else another dtype of any width the rule accepts for v's
 * layout (bool only of a storage whose base is bool). The main draw makes the first view from the
 * default input dtypes (float32, float64, int64, bool); this pass makes views from the narrower
 * dtypes those views give. Nothing reads w but the caller (v's storage stays exact: eager's bits,
 * the same in every executor), so the rest of the program computes what it did; the op table's
 * rules and eager decide whether the copy stands. The choices come from seed alone: with p_back 0
 * every program stays byte for byte what it was, and a program without a top-level dtype view
 * costs nothing. Returns a new program (free with ir_program_free), or NULL (then p stands). */
ir_program *gen_dtype_view_back(const ir_program *p, uint64_t seed, double p_back);

#endif
