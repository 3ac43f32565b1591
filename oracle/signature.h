/* signature.h - finding signatures: the same bug found a thousand times is one finding.
 *
 * A signature is (converter, verdict, class), where class is the op pattern of the minimized
 * program (its op names in order, in-place targets marked "@in" when they are inputs) for value,
 * shape, dtype and input-mutation verdicts, and the normalized error message (first line, numbers
 * and quoted names blanked) for converter errors, crashes and unsupported programs. */
#ifndef SIGNATURE_H
#define SIGNATURE_H

#include "../harness/ir.h"
#include "oracle.h"

/* "unsqueeze_@in mul"; new, free with free(). */
char *sig_pattern(const ir_program *p);
/* The line of an error message that says what went wrong: the last "SomethingError: ..." line
 * (TorchScript and Python put the context first), else the first line. Borrowed from msg. */
const char *sig_key_line(const char *msg);
/* Key line of msg with digits -> '#', quoted text -> '…', operator names -> "aten::…" (an error
 * names whichever op the program ran into: one error, one key), sizes and tuples -> "[…]", and
 * trailers that say where an exporter saw the value ("[Caused by …]", "(node defined in …)")
 * dropped; new. */
char *sig_error_class(const char *msg);
/* Fills text (new) with "converter|verdict|class" and id (a folder name:
 * "<verdict>-<16 hex digits>"). */
void sig_make(const char *converter, oracle_verdict v, const ir_program *minimized, const char *detail, char **text,
              char id[64]);
uint64_t sig_fnv1a(const void *data, size_t n, uint64_t h);

#endif
