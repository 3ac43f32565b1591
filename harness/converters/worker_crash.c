/* worker_crash.c - what a worker's crash says and whom it is charged to (conv_worker.h, "Crash
 * attribution"): the Python frames of a faulthandler dump in its stderr, the history of the
 * requests its process answered, and the reruns and replays that find the program that broke it. */
#include "worker_impl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- crash details: the worker's stderr and its Python frames ---- */

/* Where a faulthandler dump starts in the kept stderr ("Fatal Python error: ..."), the last one, or
 * NULL. */
static const char *fault_dump(const char *text) {
  const char *last = NULL;
  for (const char *q = text; (q = strstr(q, "Fatal Python error")); q++) last = q;
  return last;
}

/* Appends "; python: F:FN <- F:FN <- F:FN" to b: the innermost frames (at most 3) of the crashing
 * thread in a faulthandler dump in the worker's stderr, each the file's base name and the function,
 * innermost first, without line numbers or addresses (conv_worker_crash_site). Nothing when there
 * is no dump. */
static void put_python_frames(af_buf *b, const char *text) {
  const char *dump = fault_dump(text);
  if (!dump) return;
  const char *block = strstr(dump, "Current thread ");
  if (!block) block = strstr(dump, "Thread ");
  if (!block) return;
  int n = 0;
  for (const char *q = strchr(block, '\n'); q && n < 3; q = strchr(q + 1, '\n')) {
    const char *l = q + 1;
    while (*l == ' ') l++;
    if (strncmp(l, "File \"", 6) != 0) break; /* the end of the block */
    const char *file = l + 6, *fend = strchr(file, '"'), *nl = strchr(l, '\n');
    if (!fend || (nl && fend > nl)) break;
    const char *in = strstr(fend, " in ");
    if (!in || (nl && in > nl)) break;
    const char *base = file;
    for (const char *c = file; c < fend; c++)
      if (*c == '/') base = c + 1;
    const char *fn = in + 4;
    size_t fl = nl ? (size_t)(nl - fn) : strlen(fn);
    while (fl && (fn[fl - 1] == '\r' || fn[fl - 1] == ' ')) fl--;
    af_buf_printf(b, "%s%.*s:%.*s", n ? " <- " : "; python: ", (int)(fend - base), base, (int)fl, fn);
    n++;
  }
}

char *conv_worker_crash_site(const char *detail) {
  const char *at = detail ? strstr(detail, "; python: ") : NULL;
  if (!at) return NULL;
  at += 10;
  size_t n = strcspn(at, ";)\n"); /* (a blame quotes the crash in parentheses) */
  char *s = af_xmalloc(n + 1);
  memcpy(s, at, n);
  s[n] = 0;
  return s;
}

/* Appends what a crash or timeout message says of the worker's stderr: its Python frames when it
 * left a faulthandler dump, then "; stderr: " and its last lines before the dump. */
void worker_put_crash_stderr(af_buf *m, conv_worker *w) {
  char *text = af_xmalloc(w->errlen + 1);
  memcpy(text, w->errtail, w->errlen);
  text[w->errlen] = 0;
  put_python_frames(m, text);
  const char *dump = fault_dump(text);
  size_t keep = w->errlen;
  if (dump) keep = (size_t)(dump - text); /* the lines before it say more than the dump's end */
  size_t len = w->errlen;
  w->errlen = keep;
  char *tail = worker_err_summary(w);
  w->errlen = len;
  if (*tail) af_buf_printf(m, "; stderr: %s", tail);
  free(tail);
  free(text);
}

/* ---- history and crash attribution ---- */

static void hist_entry_free(hist_entry *h) {
  free(h->body);
  ir_program_free(h->p);
  free(h->tag);
  memset(h, 0, sizeof *h);
}

void worker_hist_clear(conv_worker *w) {
  for (int i = 0; i < w->nhist; i++) hist_entry_free(&w->hist[i]);
  w->nhist = 0;
}

/* Keeps an answered request (body moves into the history), dropping the oldest past the bound. */
void worker_hist_push(conv_worker *w, char *body, const ir_program *p, int again) {
  if (w->nhist == CONV_WORKER_HISTORY) {
    hist_entry_free(&w->hist[0]);
    memmove(w->hist, w->hist + 1, sizeof w->hist[0] * (CONV_WORKER_HISTORY - 1));
    w->nhist--;
  }
  hist_entry *h = &w->hist[w->nhist++];
  h->body = body;
  h->p = ir_program_clone(p);
  h->tag = w->tag ? af_xstrdup(w->tag) : NULL;
  h->again = again;
}

void conv_worker_blame_clear(conv_worker_blame *b) {
  if (!b) return;
  free(b->tag);
  ir_program_free(b->program);
  free(b->detail);
  memset(b, 0, sizeof *b);
}

void conv_worker_set_tag(conv_worker *w, const char *tag) {
  pthread_mutex_lock(&w->mu);
  free(w->tag);
  w->tag = tag ? af_xstrdup(tag) : NULL;
  pthread_mutex_unlock(&w->mu);
}

int conv_worker_take_blame(conv_worker *w, conv_worker_blame *out) {
  pthread_mutex_lock(&w->mu);
  int has = w->has_blame;
  if (has) *out = w->blame;
  else memset(out, 0, sizeof *out);
  memset(&w->blame, 0, sizeof w->blame);
  w->has_blame = 0;
  pthread_mutex_unlock(&w->mu);
  return has;
}

static void (*attribution_hook)(void *arg, int starting);
static void *attribution_arg;

void conv_worker_set_attribution_hook(void (*hook)(void *arg, int starting), void *arg) {
  attribution_hook = hook;
  attribution_arg = arg;
}

/* Whether crashes are traced (AF_CRASH_ATTRIBUTION=0 turns it off). */
int worker_attribution_on(void) {
  const char *e = getenv("AF_CRASH_ATTRIBUTION");
  return !(e && strcmp(e, "0") == 0);
}

/* In a fresh worker: the requests before[0..n) (answers read and dropped), then the probe (body, p),
 * whose answer goes to pr. 1 when the probe crashed the worker, 0 when it answered (or timed out,
 * or broke the protocol: anything but dying), -1 when the run could not be made (no fresh worker,
 * or one of the requests before it did not answer). */
static int replay(conv_worker *w, const hist_entry *const *before, int n, const char *body, const ir_program *p,
                  result *pr) {
  result_status how;
  int died = 0;
  if (w->pid) worker_kill(w, NULL);
  if (worker_ensure_started(w, pr, &how)) return -1;
  for (int i = 0; i < n; i++) {
    result scratch;
    result_init(&scratch);
    result_status rs = worker_send_request(w, before[i]->body, before[i]->p, &scratch, &died);
    result_clear(&scratch);
    if (died || !w->pid || rs == RESULT_TIMEOUT) return -1;
  }
  pr->status = worker_send_request(w, body, p, pr, &died);
  return died;
}

/* The crash of request (body, p) that the running worker's history may explain (conv_worker.h,
 * "Crash attribution"): reruns it in a fresh worker (after the request it calls again, if it is
 * a second call); when it then answers, r becomes that answer, and the requests before it are
 * replayed one by one (most recent first), then all together, each followed by it in a fresh
 * worker, to find the one it crashes after: that one is the blame. Returns r's status. The
 * worker is left stopped: the next program starts a fresh one. */
result_status worker_attribute_crash(conv_worker *w, const char *body, const ir_program *p, int again, result *r) {
  if (attribution_hook) attribution_hook(attribution_arg, 1);
  hist_entry h[CONV_WORKER_HISTORY];
  int n = w->nhist;
  memcpy(h, w->hist, sizeof h[0] * (size_t)n);
  w->nhist = 0; /* they are ours now: starting a fresh worker resets the history */
  int pre = again && n > 0 ? n - 1 : -1, ncand = again && n > 0 ? n - 1 : n;
  const hist_entry *seq[CONV_WORKER_HISTORY + 1] = {0};
  char *first = af_xstrdup(r->message ? r->message : "crashed");
  result rr;
  result_init(&rr);
  int k = 0;
  if (pre >= 0) seq[k++] = &h[pre];
  int d = replay(w, seq, k, body, p, &rr);
  result_status rs = RESULT_CRASH;
  int culprit = -1, together = 0;
  if (d != 0) { /* the crash is its own: it crashed again alone in a fresh worker (or could not be rerun) */
    af_buf m = {0};
    af_buf_printf(&m, "%s (%s)", first,
                  d > 0 ? "it crashed a fresh worker again when rerun" : "it could not be rerun in a fresh worker");
    free(r->message);
    r->message = af_buf_take(&m);
    result_clear(&rr);
    goto out;
  }
  result_clear(r);
  *r = rr;
  rs = rr.status;
  for (int j = ncand - 1; j >= 0 && culprit < 0; j--) { /* one at a time, most recent first */
    result scratch;
    result_init(&scratch);
    k = 0;
    if (h[j].again && j > 0) seq[k++] = &h[j - 1]; /* a second call goes with the call before it */
    seq[k++] = &h[j];
    if (pre >= 0) seq[k++] = &h[pre];
    if (replay(w, seq, k, body, p, &scratch) > 0) culprit = j;
    result_clear(&scratch);
  }
  if (culprit < 0 && ncand > 1) { /* together: damage that takes more than one of them */
    result scratch;
    result_init(&scratch);
    k = 0;
    for (int j = 0; j < ncand; j++) seq[k++] = &h[j];
    if (pre >= 0) seq[k++] = &h[pre];
    if (replay(w, seq, k, body, p, &scratch) > 0) culprit = ncand - 1, together = 1;
    result_clear(&scratch);
  }
  if (culprit >= 0) {
    af_buf m = {0};
    af_buf_printf(&m,
                  "the worker was left broken by this program: the program after it crashed the worker (%s); that "
                  "program answered when rerun in a fresh worker, and crashes a fresh worker again when it follows ",
                  first);
    if (together) af_buf_printf(&m, "this program and the %d before it", culprit);
    else af_buf_puts(&m, "this program");
    conv_worker_blame_clear(&w->blame);
    w->blame.tag = h[culprit].tag ? af_xstrdup(h[culprit].tag) : NULL;
    w->blame.program = ir_program_clone(h[culprit].p);
    w->blame.detail = af_buf_take(&m);
    w->has_blame = 1;
  } else {
    fprintf(stderr,
            "aliasfuzz: worker %s crashed on a program that answered when rerun in a fresh worker, and replaying the "
            "%d request%s before it did not crash a fresh worker again: the crash is charged to no program (%s)\n",
            w->name, ncand, ncand == 1 ? "" : "s", first);
  }
out:
  if (w->pid) worker_kill(w, NULL); /* replayed or damaged: the next program gets a fresh worker */
  for (int i = 0; i < n; i++) hist_entry_free(&h[i]);
  free(first);
  if (attribution_hook) attribution_hook(attribution_arg, 0);
  return rs;
}
