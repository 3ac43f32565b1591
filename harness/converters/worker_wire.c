/* worker_wire.c - the wire codec of aliasfuzz-worker/1 (harness/workers/PROTOCOL.md): a program
 * and its inputs as a request line, an answer line read into a result (every rule the client
 * enforces on a well-formed line), the hello's versions as text. */
#include "worker_impl.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../codec.h"
#include "../emit.h"
#include "../torch/shim.h"

static const char b64chars[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

static char *b64_encode(const unsigned char *d, size_t n) {
  char *o = af_xmalloc(4 * ((n + 2) / 3) + 1), *p = o;
  for (size_t i = 0; i < n; i += 3) {
    unsigned v = (unsigned)d[i] << 16 | (i + 1 < n ? (unsigned)d[i + 1] << 8 : 0) | (i + 2 < n ? d[i + 2] : 0);
    *p++ = b64chars[v >> 18 & 63];
    *p++ = b64chars[v >> 12 & 63];
    *p++ = i + 1 < n ? b64chars[v >> 6 & 63] : '=';
    *p++ = i + 2 < n ? b64chars[v & 63] : '=';
  }
  *p = 0;
  return o;
}

/* Decodes standard base64 with padding; new buffer in *out (free with free()). -1 on bad input. */
static int b64_decode(const char *s, unsigned char **out, size_t *n) {
  size_t len = strlen(s);
  *out = NULL;
  *n = 0;
  if (len % 4) return -1;
  unsigned char *o = af_xmalloc(len / 4 * 3 + 1);
  size_t k = 0;
  for (size_t i = 0; i < len; i += 4) {
    int v[4], pad = 0;
    for (int j = 0; j < 4; j++) {
      char c = s[i + j];
      const char *at = c ? strchr(b64chars, c) : NULL;
      if (c == '=' && i + 4 == len && j >= 2) {
        v[j] = 0;
        pad++;
      } else if (at && !pad) {
        v[j] = (int)(at - b64chars);
      } else {
        free(o);
        return -1;
      }
    }
    unsigned w = (unsigned)v[0] << 18 | (unsigned)v[1] << 12 | (unsigned)v[2] << 6 | (unsigned)v[3];
    o[k++] = (unsigned char)(w >> 16);
    if (pad < 2) o[k++] = (unsigned char)(w >> 8);
    if (pad < 1) o[k++] = (unsigned char)w;
  }
  *out = o;
  *n = k;
  return 0;
}

char *worker_versions_text(const cJSON *v) {
  af_buf b = {0};
  const cJSON *e;
  cJSON_ArrayForEach(e, v) {
    if (b.len) af_buf_puts(&b, ", ");
    if (cJSON_IsString(e)) af_buf_printf(&b, "%s %s", e->string, e->valuestring);
    else if (cJSON_IsNumber(e)) af_buf_printf(&b, "%s %g", e->string, e->valuedouble);
  }
  return b.len ? af_buf_take(&b) : (af_buf_free(&b), af_xstrdup("unknown"));
}

/* ---- requests and answers ---- */

/* A protocol tensor {"name", "shape", "dtype", "data": base64 of t's bytes} with the given shape
 * and dtype; new, NULL with err when t's bytes cannot be read. */
static cJSON *tensor_json(const char *name, const af_tensor *t, int rank, const int64_t *shape, af_dtype dt, af_err *err) {
  size_t nbytes = (size_t)at_tensor_numel(t) * af_dtype_size(dt);
  unsigned char *raw = af_xmalloc(nbytes ? nbytes : 1);
  if (at_tensor_bytes(t, raw, nbytes, err)) {
    free(raw);
    return NULL;
  }
  char *b64 = b64_encode(raw, nbytes);
  free(raw);
  cJSON *o = cJSON_CreateObject();
  cJSON_AddStringToObject(o, "name", name);
  cJSON *sh = cJSON_AddArrayToObject(o, "shape");
  for (int d = 0; d < rank; d++) cJSON_AddItemToArray(sh, cJSON_CreateNumber((double)shape[d]));
  cJSON_AddStringToObject(o, "dtype", af_dtype_name(dt));
  cJSON_AddStringToObject(o, "data", b64);
  free(b64);
  return o;
}

/* The request for p as a JSON object without its "id" (worker_request_line adds it, so that a request
 * can be sent again with another id); new, free with free(). NULL with err when an input cannot
 * be sent. */
char *worker_request_body(const ir_program *p, af_tensor *const *inputs, int again, af_err *err) {
  cJSON *root = cJSON_CreateObject();
  if (again) cJSON_AddTrueToObject(root, "again"); /* PROTOCOL.md "Calling again" */
  char *ptext = codec_write_string(p);
  cJSON *pj = cJSON_Parse(ptext);
  free(ptext);
  if (!pj) {
    cJSON_Delete(root);
    af_fail(err, "cannot re-read the program's own JSON form");
    return NULL;
  }
  cJSON_AddItemToObject(root, "program", pj);
  char *src = emit_torchscript(p, "program");
  cJSON_AddStringToObject(root, "torchscript", src);
  free(src);
  /* with module state the source is an nn.Module's forward; "buffers" names the inputs that are
   * its buffers (PROTOCOL.md, "Module state") */
  cJSON_AddStringToObject(root, "function", ir_nbuffers(p) ? "forward" : "program");
  if (ir_nbuffers(p)) {
    cJSON *bufs = cJSON_AddArrayToObject(root, "buffers");
    for (int i = 0; i < p->ninputs; i++)
      if (p->inputs[i].buffer) cJSON_AddItemToArray(bufs, cJSON_CreateString(p->names[p->inputs[i].value]));
  }
  if (p->nbases) { /* layouts (PROTOCOL.md "Input layouts"): each storage, flat */
    cJSON *bases = cJSON_AddArrayToObject(root, "bases");
    for (int b = 0; b < p->nbases; b++) {
      int64_t numel = p->bases[b].numel;
      cJSON *o = tensor_json(ir_base_name(p, b), inputs[p->ninputs + b], 1, &numel, p->bases[b].dtype, err);
      if (!o) {
        cJSON_Delete(root);
        return NULL;
      }
      cJSON_AddBoolToObject(o, "hidden", p->bases[b].owner < 0);
      if (p->train && p->bases[b].grad) cJSON_AddBoolToObject(o, "requires_grad", 1); /* PROTOCOL.md "Training" */
      cJSON_AddItemToArray(bases, o);
    }
  }
  cJSON *arr = cJSON_AddArrayToObject(root, "inputs");
  for (int i = 0; i < p->ninputs; i++) {
    const af_tensor *t = inputs[i];
    const ir_input *pi = &p->inputs[i];
    if (pi->base) { /* a view of a storage: no data of its own */
      cJSON *o = cJSON_CreateObject();
      cJSON_AddStringToObject(o, "name", p->names[pi->value]);
      cJSON *sh = cJSON_AddArrayToObject(o, "shape"), *st;
      for (int d = 0; d < pi->rank; d++) cJSON_AddItemToArray(sh, cJSON_CreateNumber((double)pi->shape[d]));
      cJSON_AddStringToObject(o, "dtype", af_dtype_name(pi->dtype));
      cJSON_AddNumberToObject(o, "base", pi->base - 1);
      st = cJSON_AddArrayToObject(o, "strides");
      for (int d = 0; d < pi->rank; d++) cJSON_AddItemToArray(st, cJSON_CreateNumber((double)pi->strides[d]));
      cJSON_AddNumberToObject(o, "offset", (double)pi->offset);
      cJSON_AddItemToArray(arr, o);
      continue;
    }
    int rank = at_tensor_rank(t), dt = at_tensor_dtype(t);
    int64_t shape[AF_MAX_RANK];
    if (dt < 0 || rank > AF_MAX_RANK) {
      cJSON_Delete(root);
      af_fail(err, "input %s: a tensor aliasfuzz cannot send", p->names[p->inputs[i].value]);
      return NULL;
    }
    at_tensor_shape(t, shape);
    cJSON *o = tensor_json(p->names[p->inputs[i].value], t, rank, shape, (af_dtype)dt, err);
    if (!o) {
      cJSON_Delete(root);
      return NULL;
    }
    cJSON_AddItemToArray(arr, o);
  }
  char *text = cJSON_PrintUnformatted(root);
  cJSON_Delete(root);
  char *body = af_xstrdup(text);
  cJSON_free(text);
  return body;
}

/* The request line: body (worker_request_body, "{...}") with "id" first, newline-terminated; new. */
char *worker_request_line(const char *body, double id) {
  af_buf b = {0};
  af_buf_printf(&b, "{\"id\":%.0f%s%s\n", id, body[1] == '}' ? "" : ",", body + 1);
  return af_buf_take(&b);
}

/* A protocol tensor as a new af_tensor; -1 with what is wrong in err. */
static int decode_tensor(const cJSON *o, af_tensor **out, af_err *err) {
  *out = NULL;
  const cJSON *shape = cJSON_GetObjectItemCaseSensitive(o, "shape");
  const cJSON *dtype = cJSON_GetObjectItemCaseSensitive(o, "dtype");
  const cJSON *data = cJSON_GetObjectItemCaseSensitive(o, "data");
  if (!cJSON_IsObject(o)) return af_fail(err, "not a tensor object");
  if (!cJSON_IsArray(shape)) return af_fail(err, "\"shape\" is not an array");
  if (!cJSON_IsString(dtype)) return af_fail(err, "\"dtype\" is not a string");
  if (!cJSON_IsString(data)) return af_fail(err, "\"data\" is not a base64 string");
  af_dtype dt;
  if (af_dtype_parse_real(dtype->valuestring, &dt))
    return af_fail(err, "dtype '%s' is not one aliasfuzz models (%s)", dtype->valuestring, af_dtype_names());
  int rank = cJSON_GetArraySize(shape);
  if (rank > AF_MAX_RANK) return af_fail(err, "rank %d is more than %d", rank, AF_MAX_RANK);
  int64_t sh[AF_MAX_RANK];
  double numel = 1;
  af_buf sb = {0};
  for (int d = 0; d < rank; d++) {
    const cJSON *e = cJSON_GetArrayItem(shape, d);
    if (!cJSON_IsNumber(e) || e->valuedouble < 0 || e->valuedouble != floor(e->valuedouble) || e->valuedouble > 1e12) {
      af_buf_free(&sb);
      return af_fail(err, "shape entry %d is not a size", d);
    }
    sh[d] = (int64_t)e->valuedouble;
    numel *= e->valuedouble;
    af_buf_printf(&sb, "%s%lld", d ? ", " : "", (long long)sh[d]);
  }
  unsigned char *raw;
  size_t n;
  if (b64_decode(data->valuestring, &raw, &n)) {
    af_buf_free(&sb);
    return af_fail(err, "\"data\" is not valid base64");
  }
  double want = numel * (double)af_dtype_size(dt);
  int rc = 0;
  if ((double)n != want)
    rc = af_fail(err, "%zu bytes of data for shape [%s] %s (%.0f expected)", n, sb.s ? sb.s : "", af_dtype_name(dt),
                 want);
  else
    rc = at_tensor_from_bytes(dt, rank, sh, raw, n, out, err);
  free(raw);
  af_buf_free(&sb);
  return rc;
}

/* Sets r's message to "worker NAME: protocol error: what"; returns RESULT_PROTOCOL. */
static result_status protocol_error(result *r, const conv_worker *w, const char *what) {
  af_buf b = {0};
  af_buf_printf(&b, "worker %s: protocol error: %s", w->name, what);
  free(r->message);
  r->message = af_buf_take(&b);
  return RESULT_PROTOCOL;
}

/* A training program's gradients (issue 33, PROTOCOL.md "Training"): "grads", one per program
 * input, the .grad after the backward or null (no grad: the input does not require grad, or the
 * backward never reached it); for a program with a hidden base that requires grad, "base_grads"
 * too, one per storage of the request's "bases" (r->grads[ninputs + b]). RESULT_OK, or
 * RESULT_PROTOCOL when missing or malformed. */
static result_status answer_grads(conv_worker *w, const cJSON *a, const ir_program *p, result *r) {
  if (!p->train) return RESULT_OK;
  const cJSON *gs = cJSON_GetObjectItemCaseSensitive(a, "grads");
  if (!cJSON_IsArray(gs) || cJSON_GetArraySize(gs) != p->ninputs)
    return protocol_error(r, w, "an ok answer to a training program needs \"grads\": one entry (a tensor or null) per program input");
  int base_grads = 0;
  for (int b = 0; b < p->nbases; b++) base_grads |= p->bases[b].grad;
  const cJSON *bs = cJSON_GetObjectItemCaseSensitive(a, "base_grads");
  if (base_grads && (!cJSON_IsArray(bs) || cJSON_GetArraySize(bs) != p->nbases))
    return protocol_error(r, w, "an ok answer to a training program whose base requires grad needs \"base_grads\": one entry (a tensor or null) per storage of the request's \"bases\"");
  const cJSON *ga = cJSON_GetObjectItemCaseSensitive(a, "grad_enabled_after"); /* optional: the caller's grad mode */
  if (ga && !cJSON_IsBool(ga)) return protocol_error(r, w, "\"grad_enabled_after\" must be true or false");
  if (ga) r->grad_after = cJSON_IsTrue(ga);
  r->ngrads = ir_ntensors(p);
  r->grads = af_xcalloc((size_t)r->ngrads + 1, sizeof(af_tensor *));
  af_err err;
  for (int k = 0; k < r->ngrads; k++) {
    const cJSON *t = k < p->ninputs ? cJSON_GetArrayItem(gs, k) : base_grads ? cJSON_GetArrayItem(bs, k - p->ninputs) : NULL;
    if (!t || cJSON_IsNull(t)) continue;
    if (decode_tensor(t, &r->grads[k], &err)) {
      char what[1200];
      snprintf(what, sizeof what, "%s %d (%s): %s", k < p->ninputs ? "grads" : "base_grads", k < p->ninputs ? k : k - p->ninputs,
               k < p->ninputs ? p->names[p->inputs[k].value] : p->bases[k - p->ninputs].name, err.msg);
      return protocol_error(r, w, what);
    }
  }
  return RESULT_OK;
}

/* The tensors of an ok answer into r: one output per program output, one final state (or null)
 * per program input, and the storages' final states ("bases", layouts). RESULT_OK, or
 * RESULT_PROTOCOL with r's message naming the first thing wrong. */
static result_status answer_tensors(conv_worker *w, const cJSON *a, const ir_program *p, result *r) {
  af_err err;
  const cJSON *outs = cJSON_GetObjectItemCaseSensitive(a, "outputs");
  const cJSON *ins = cJSON_GetObjectItemCaseSensitive(a, "inputs");
  if (!cJSON_IsArray(outs) || !cJSON_IsArray(ins)) {
    return protocol_error(r, w, "an ok answer needs \"outputs\" and \"inputs\" arrays");
  }
  int no = cJSON_GetArraySize(outs), ni = cJSON_GetArraySize(ins);
  if (no != p->noutputs) { /* one per program output (a converter that lost one is the worker's to report) */
    snprintf(err.msg, sizeof err.msg, "\"outputs\" has %d entries for %d program outputs", no, p->noutputs);
    return protocol_error(r, w, err.msg);
  }
  if (ni != p->ninputs) {
    snprintf(err.msg, sizeof err.msg, "\"inputs\" has %d entries for %d program inputs", ni, p->ninputs);
    return protocol_error(r, w, err.msg);
  }
  af_tensor **o = af_xcalloc((size_t)no, sizeof *o), **in = af_xcalloc((size_t)ni, sizeof *in);
  int bad = 0;
  char what[1200];
  for (int k = 0; k < no && !bad; k++)
    if (decode_tensor(cJSON_GetArrayItem(outs, k), &o[k], &err)) {
      snprintf(what, sizeof what, "output %d: %s", k, err.msg);
      bad = 1;
    }
  for (int k = 0; k < ni && !bad; k++) {
    const cJSON *t = cJSON_GetArrayItem(ins, k);
    if (cJSON_IsNull(t)) continue;
    if (decode_tensor(t, &in[k], &err)) {
      snprintf(what, sizeof what, "input %d (%s): %s", k, p->names[p->inputs[k].value], err.msg);
      bad = 1;
    }
  }
  if (bad) {
    inputs_free(no, o);
    inputs_free(ni, in);
    return protocol_error(r, w, what);
  }
  /* the storages' final states: "bases" (layouts), one per request base or null; absent: none
     expressed (NULL entries, so the caller's untouched storages are not taken for them) */
  const cJSON *bs = cJSON_GetObjectItemCaseSensitive(a, "bases");
  af_tensor **fb = p->nbases ? af_xcalloc((size_t)p->nbases, sizeof *fb) : NULL;
  if (bs && (!cJSON_IsArray(bs) || cJSON_GetArraySize(bs) != p->nbases)) {
    snprintf(what, sizeof what, "\"bases\" must have one entry (a tensor or null) per request base (%d)", p->nbases);
    bad = 1;
  }
  for (int k = 0; bs && !bad && k < p->nbases; k++) {
    const cJSON *t = cJSON_GetArrayItem(bs, k);
    if (cJSON_IsNull(t)) continue;
    if (decode_tensor(t, &fb[k], &err)) {
      snprintf(what, sizeof what, "base %d (%s): %s", k, p->bases[k].name, err.msg);
      bad = 1;
    }
  }
  if (bad) {
    inputs_free(no, o);
    inputs_free(ni, in);
    inputs_free(p->nbases, fb);
    return protocol_error(r, w, what);
  }
  r->noutputs = no;
  r->outputs = o;
  r->ninputs = ni;
  r->inputs = in;
  r->nbases = p->nbases;
  r->bases = fb;
  return answer_grads(w, a, p, r);
}

/* Fills r from a parsed answer. Returns the status; on a protocol error, RESULT_PROTOCOL with
 * the message set and *desync when the worker can no longer be trusted to stay in step. */
result_status worker_read_answer(conv_worker *w, const cJSON *a, double id, const ir_program *p, result *r,
                                 int *desync) {
  af_err err;
  const cJSON *jid = cJSON_GetObjectItemCaseSensitive(a, "id");
  const cJSON *status = cJSON_GetObjectItemCaseSensitive(a, "status");
  const cJSON *message = cJSON_GetObjectItemCaseSensitive(a, "message");
  const cJSON *graph = cJSON_GetObjectItemCaseSensitive(a, "graph");
  const cJSON *warnings = cJSON_GetObjectItemCaseSensitive(a, "warnings");
  const cJSON *residual = cJSON_GetObjectItemCaseSensitive(a, "residual");
  const cJSON *timing = cJSON_GetObjectItemCaseSensitive(a, "timing");
  if (cJSON_IsObject(timing)) { /* the worker's own seconds (convert, run): its numeric fields */
    double sum = 0;
    int any = 0;
    for (const cJSON *t = timing->child; t; t = t->next)
      if (cJSON_IsNumber(t) && t->valuedouble >= 0) sum += t->valuedouble, any = 1;
    if (any) r->converter_s = sum;
  }
  if (!cJSON_IsNumber(jid) || jid->valuedouble != id) {
    *desync = 1;
    snprintf(err.msg, sizeof err.msg, "answer for request id %s, expected %.0f",
             cJSON_IsNumber(jid) ? "another" : "a missing", id);
    return protocol_error(r, w, err.msg);
  }
  if (!cJSON_IsString(status)) {
    return protocol_error(r, w, "answer without a \"status\" string");
  }
  /* graph text: warnings first, as comments */
  af_buf g = {0};
  const cJSON *e;
  af_buf wl = {0};
  if (cJSON_IsArray(warnings)) cJSON_ArrayForEach(e, warnings) if (cJSON_IsString(e)) {
      af_buf_printf(&g, "# warning: %s\n", e->valuestring);
      af_buf_printf(&wl, "%s%s", wl.len ? "; " : "", e->valuestring);
    }
  if (cJSON_IsString(graph)) af_buf_puts(&g, graph->valuestring);
  free(r->graph);
  r->graph = g.len ? af_buf_take(&g) : (af_buf_free(&g), NULL);
  if (cJSON_IsNumber(residual)) r->residual = (int)residual->valuedouble;
  const char *st = status->valuestring;
  result_status rs;
  if (!strcmp(st, "unsupported")) rs = RESULT_UNSUPPORTED;
  else if (!strcmp(st, "error")) rs = RESULT_ERROR;
  else if (!strcmp(st, "crash")) rs = RESULT_CRASH;
  else if (!strcmp(st, "ok")) rs = RESULT_OK;
  else {
    snprintf(err.msg, sizeof err.msg, "unknown status '%.100s'", st);
    af_buf_free(&wl);
    return protocol_error(r, w, err.msg);
  }
  if (rs != RESULT_OK) {
    af_buf m = {0};
    af_buf_printf(&m, "%s", cJSON_IsString(message) && *message->valuestring ? message->valuestring : st);
    free(r->message);
    r->message = af_buf_take(&m);
    af_buf_free(&wl);
    return rs;
  }
  if (wl.len) {
    free(r->message);
    r->message = af_buf_take(&wl);
  }
  af_buf_free(&wl);
  return answer_tensors(w, a, p, r);
}
