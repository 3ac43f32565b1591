/* graphdiff.h - what a converter's graph changed against its baseline's: the locus of a regression.
 *
 * With --baseline a converter, a failing program the baseline gets right is a new bug, and the two
 * converted graphs of that program say where it lives: the baseline lowered it right, the candidate
 * lowered it otherwise. A maintainer's regression is one edit in one lowering, and every program
 * that reaches that lowering shows it, whatever user-level op brought it there (`x[1:3] = 0`,
 * `x.narrow(0, 1, 2).zero_()` and `x[1:3].contiguous()` all lower to one slice_scatter). So the
 * class of such a program keys on the graph change, not on its ops (classes.h).
 *
 * The change is the set of ops whose lines differ, line by line after a longest-common-subsequence
 * alignment of the two graph texts, at the first of two levels that shows any difference:
 *   1. each line as its op and its constant arguments, every reference to a value of the graph
 *      blanked: a node removed, added, or given other constants (an offset, a dim, an index);
 *   2. the same with each reference spelled as its place, the line that made the value or the
 *      input (the graphs' lines correspond one to one here, as level 1 found no difference): a
 *      node fed from another value (the copy_ back into an input taking a stale value).
 * Level 1 alone ignores where values flow; level 2 alone would also list every line downstream of
 * a removed node. Trailing liveness notes (FX's `;  x = None`), value names and numbering, and
 * type annotations (`%5 : Float(2, 3) = ...`) are not part of a line. The ops that only spell one
 * mechanism in several ways fold into it (GRAPHDIFF_FOLDS: functionalization's view inverses
 * slice_scatter, select_scatter, diagonal_scatter and as_strided_scatter are all "view_scatter", a
 * write through a view put back into its base).
 *
 * Only one lowering edited has a locus: where fewer than half of the two graphs' lines match at
 * level 1, the baseline is another converter that lowers the program its own way (naive against
 * ref, onnx against jit), and nothing is localized.
 *
 * Works on the graph texts the converters give (FX code, TorchScript IR, ONNX and Relay text):
 * a line "LHS = CALL(ARGS)" or "CALL(ARGS)"; other lines count by their first word. */
#ifndef GRAPHDIFF_H
#define GRAPHDIFF_H

#include <stddef.h>

/* The sorted, space-separated ops that differ between the baseline's graph and the candidate's
 * ("view_scatter", "copy_"); NULL when either text is missing or nothing differs at either level.
 * new, free with free(). */
char *graphdiff_locus(const char *base_graph, const char *graph);

/* The op of one graph line ("slice_scatter" of "x = torch.ops.aten.slice_scatter.default(a, b)",
 * "Slice" of "%5 : Float = onnx::Slice(%x)"), folded (GRAPHDIFF_FOLDS); "" for a line without one.
 * out: at least 128 bytes. */
void graphdiff_line_op(const char *line, char *out, size_t n);

#endif
