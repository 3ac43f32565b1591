/* campaign_pool.c - a campaign's job processes (campaign_int.h): each job a forked child running
 * campaign_job_main, watched by the parent's poll loop (campaign_pool_run) with the per-program
 * deadline (the minimization deadline while it minimizes), reaped when it dies or hangs and
 * started again after the iteration it was running, which becomes a converter-crash or
 * converter-timeout finding (campaign_pool_lost, with the crash traced to an earlier program of
 * the job when the program passes alone). */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "campaign_int.h"
#include "crashsite.h"

int campaign_pool_spawn(camp *k, int j, af_err *err) {
  job *jb = &k->jobs[j];
  int64_t start = jb->watermark < 0 ? campaign_first_iteration(k->o, j) : jb->watermark + campaign_iteration_step(k->o);
  if (k->o->iterations && start >= k->o->iterations) {
    jb->finished = 1;
    jb->pid = -1;
    return 0;
  }
  int fd[2];
  if (pipe(fd) != 0) return af_fail(err, "pipe: %s", strerror(errno));
  af_buf_free(&jb->crash);
  jb->tracing = 0;
  jb->batch = 0;
  fflush(NULL);
  pid_t pid = fork();
  if (pid < 0) return af_fail(err, "fork: %s", strerror(errno));
  if (pid == 0) {
    close(fd[0]);
    prctl(PR_SET_PDEATHSIG, SIGKILL); /* a job never outlives its campaign */
    if (getppid() == 1) _exit(0);
    af_dir_lock_drop_inherited(); /* nor keeps its folder locked */
    signal(SIGINT, SIG_IGN); /* the parent decides when to stop */
    signal(SIGTERM, SIG_DFL);
    crashsite_install(fd[1]); /* a crash sends its native frames: each crash state its own class */
    campaign_batch_alone_before(jb->alone_before);
    campaign_job_main(k->o, k->c, j, start, fd[1], k->search_t0, jb->reduce_s, jb->seen, jb->nseen);
    _exit(0);
  }
  close(fd[1]);
  jb->pid = pid;
  jb->fd = fd[0];
  jb->inflight = -1;
  jb->finished = 0;
  return 0;
}

/* A job died or hung while running iteration it: record converter-crash / -timeout. */
/* Whether judging q and then p in one fresh process kills it (a child; deadline_s each). */
static int crashes_after(camp *k, const ir_program *q, const ir_program *p) {
  fflush(NULL);
  pid_t pid = fork();
  if (pid < 0) return 0;
  if (pid == 0) {
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    oracle_opts oo = {k->o->fail_on_residual};
    judgement j = {0};
    af_err err;
    if (judge_inprocess(k->c, q, &oo, &j, &err) == 0) judgement_clear(&j);
    if (judge_inprocess(k->c, p, &oo, &j, &err) == 0) judgement_clear(&j);
    _exit(0);
  }
  double until = campaign_now() + 3 * k->o->deadline_s;
  int status = 0;
  for (;;) {
    pid_t r = waitpid(pid, &status, WNOHANG);
    if (r == pid) break;
    if (r < 0 && errno != EINTR) return 0;
    if (campaign_now() > until) {
      kill(pid, SIGKILL);
      waitpid(pid, &status, 0);
      return 0;
    }
    struct timespec ts = {0, 20 * 1000 * 1000};
    nanosleep(&ts, NULL);
  }
  return WIFSIGNALED(status);
}

/* A job died on iteration it, but its program does not crash a fresh process: one of the job's
 * programs before it left the process broken (a heap the converter corrupted). Of the job's last
 * few programs (iterations it - step, it - 2 step, ...: campaign_iteration_step), the nearest one
 * that, judged first in a fresh process, makes iteration it's program crash; NULL when none
 * does. *culprit_it: its iteration. new. */
#define CULPRIT_LOOKBACK 4
static ir_program *find_culprit(camp *k, int j, int64_t it, const ir_program *p, int64_t *culprit_it) {
  for (int back = 1; back <= CULPRIT_LOOKBACK; back++) {
    int64_t q_it = it - (int64_t)back * campaign_iteration_step(k->o);
    if (q_it < campaign_first_iteration(k->o, j)) break;
    uint64_t seed = campaign_program_seed(k->o->seed, q_it);
    ir_program *q = NULL;
    af_err err;
    campaign_opts lo = *k->o; /* with the policy that iteration ran with (campaign_policy.c) */
    campaign_policy_at(k->o, j, q_it, &lo.policy);
    if (judge_gen_program(&lo.policy, seed, &q, &seed, NULL, &err)) continue;
    campaign_job_stamp_meta(q, &lo, q_it, seed);
    if (crashes_after(k, q, p)) {
      *culprit_it = q_it;
      return q;
    }
    ir_program_free(q);
  }
  return NULL;
}

void campaign_pool_lost(camp *k, int j, int64_t it, oracle_verdict v, const char *why) {
  uint64_t seed = campaign_program_seed(k->o->seed, it);
  ir_program *p = NULL, *min = NULL;
  af_err err;
  campaign_opts lo = *k->o; /* with the policy that iteration ran with (campaign_policy.c) */
  campaign_policy_at(k->o, j, it, &lo.policy);
  if (judge_gen_program(&lo.policy, seed, &p, &seed, NULL, &err)) {
    fprintf(stderr, "\naliasfuzz: job %d %s at iteration %lld and its program cannot be regenerated: %s\n", j, why,
            (long long)it, err.msg);
    return;
  }
  campaign_job_stamp_meta(p, &lo, it, seed);
  /* a crash or timeout whose quick key a class has already is counted there, not minimized
   * again: the isolated minimization below forks a child per test (a 2.13 functionalize campaign
   * spent 13 s of every 20 on re-minimizing one segfault) */
  char *qk = classes_quick_key(p, v, why);
  k->idx_dirty = 1;
  if (classes_index_count_quick(k->idx, qk, j, it)) {
    free(qk);
    ir_program_free(p);
    return;
  }
  reduce_stats rs = {0};
  oracle_opts oo = {k->o->fail_on_residual};
  judgement conf = {0};
  int have_rs = 0;
  /* within the budget of the job it killed (its minimizing, counted as such); over it, the crash
   * is recorded as found: its class keys on its error key either way */
  double limit = campaign_job_allowance(k->o, campaign_now() - k->search_t0, k->jobs[j].reduce_s);
  if (v == V_CRASH && !k->o->no_reduce && limit >= campaign_job_min_start(k->o)) {
    /* confirm in isolation, then minimize with an isolated predicate (each test in a child) */
    double r0 = campaign_now();
    int isolated = judge_isolated(k->c, p, &oo, k->o->deadline_s, &conf, &err) == 0;
    if (isolated && conf.verdict != V_CRASH) {
      /* not this program's crash: charged to the program that broke the process, if one did */
      int64_t q_it = -1;
      ir_program *q = find_culprit(k, j, it, p, &q_it);
      char detail[900];
      if (q)
        snprintf(detail, sizeof detail, "%s while judging the program after this one (iteration %lld), which passes on its own: "
                 "this program leaves the converter's process broken", why, (long long)it);
      else
        snprintf(detail, sizeof detail, "%s, but the program passes on its own (%s) and none of the %d programs before it in the job "
                 "makes it crash: not reproduced", why, oracle_verdict_name(conf.verdict), CULPRIT_LOOKBACK);
      fprintf(stderr, "\naliasfuzz: job %d crashed at iteration %lld, whose program passes alone: %s\n", j, (long long)it,
              q ? "charged to the program before it that left the process broken" : "no earlier program of the job explains it (flaky)");
      finding f = {.converter = k->c->name, .converter_version = k->c->version(k->c), .convert_py = k->c->repro_py,
                   .verdict = V_CRASH, .detail = detail, .original = q ? q : p, .minimized = q ? q : p, .seed = seed,
                   .iteration = q ? q_it : it, .job = j, .options_json = k->options_json,
                   .reruns = 1, .reproduced = q ? 1 : 0}; /* no culprit: flaky, in no class */
      char *cqk = q ? classes_quick_key(q, V_CRASH, detail) : af_xstrdup(qk);
      campaign_state_record(k, &f, cqk);
      free(cqk);
      ir_program_free(q);
      double spent = campaign_now() - r0;
      k->reduce_seconds += spent;
      k->jobs[j].reduce_s += spent;
      free(qk);
      judgement_clear(&conf);
      ir_program_free(p);
      return;
    }
    if (isolated && conf.verdict == V_CRASH) {
      double left = limit - (campaign_now() - r0);
      campaign_job_minimize_crash(k->c, &oo, p, conf.detail, k->o->max_reduce_tests < 150 ? k->o->max_reduce_tests : 150,
                                  left > 0.01 ? left : 0.01, &min, &rs);
      have_rs = 1;
    }
    double spent = campaign_now() - r0;
    k->reduce_seconds += spent;
    k->jobs[j].reduce_s += spent;
  }
  if (!min) min = ir_program_clone(p);
  finding f = {
      .converter = k->c->name,
      .converter_version = k->c->version(k->c),
      .convert_py = k->c->repro_py,
      .verdict = v,
      .detail = conf.detail ? conf.detail : why,
      .original = p,
      .minimized = min,
      .reduction = have_rs ? &rs : NULL,
      .seed = seed,
      .iteration = it,
      .job = j,
      .options_json = k->options_json,
  };
  campaign_state_record(k, &f, qk);
  free(qk);
  judgement_clear(&conf);
  ir_program_free(p);
  ir_program_free(min);
}

void campaign_pool_reap(camp *k, int j, int killed_for_timeout) {
  job *jb = &k->jobs[j];
  int status = 0;
  if (jb->pid > 0)
    while (waitpid(jb->pid, &status, 0) < 0 && errno == EINTR) {
    }
  if (jb->fd >= 0) {
    /* what the job sent before it died (its crash frames) */
    char chunk[4096];
    ssize_t got;
    fcntl(jb->fd, F_SETFL, fcntl(jb->fd, F_GETFL) | O_NONBLOCK); /* a worker it started may hold the pipe */
    while ((got = read(jb->fd, chunk, sizeof chunk - 1)) > 0) {
      chunk[got] = 0;
      af_buf_puts(&jb->in, chunk);
    }
    campaign_wire_read(k, j);
    close(jb->fd);
  }
  jb->fd = -1;
  jb->pid = -1;
  af_buf_free(&jb->in);
  int reducing = jb->reducing;
  char *pending = jb->pending;
  jb->reducing = 0;
  jb->pending = NULL;
  if (jb->finished || campaign_stop_requested) {
    free(pending);
    return;
  }
  if (jb->inflight >= 0 && reducing && pending) {
    /* the program itself was judged; its minimization ran out of time or a candidate crashed the
     * converter: the program is kept as found, deferred, and its verdict counted */
    int64_t it = jb->inflight;
    campaign_deferred_keep(k, j, pending, !killed_for_timeout);
    fprintf(stderr, "\naliasfuzz: job %d: minimizing the finding of iteration %lld %s; the program is kept under %s/deferred/\n", j,
            (long long)it, killed_for_timeout ? "ran past its deadline" : "crashed the job", k->o->out);
  } else if (jb->inflight >= 0 && jb->batch > 0) {
    /* killed or crashed inside a batch (--batch): which of its programs did it is not known here,
     * and charging iteration inflight would make a finding of a program that may pass alone. The
     * next process starts at inflight again and judges the batch's programs alone: one that hangs
     * or crashes again is charged to itself by the branch below, as with --batch 1. */
    fprintf(stderr, "\naliasfuzz: job %d %s inside a batch of iterations %lld to %lld; judging them alone\n", j,
            killed_for_timeout ? "ran past its deadline" : "died", (long long)jb->inflight, (long long)jb->batch_last);
    if (jb->batch_last + 1 > jb->alone_before) jb->alone_before = jb->batch_last + 1;
    jb->inflight = -1;
  } else if (jb->inflight >= 0) {
    char why[600];
    oracle_verdict v = killed_for_timeout ? V_TIMEOUT : V_CRASH;
    if (killed_for_timeout) snprintf(why, sizeof why, "no answer within %.1f s (job killed)", k->o->deadline_s);
    else if (WIFSIGNALED(status)) {
      char *site = crashsite_describe(WTERMSIG(status), jb->crash.s);
      snprintf(why, sizeof why, "%s", site);
      free(site);
    } else snprintf(why, sizeof why, "converter process exited with status %d", WEXITSTATUS(status));
    int64_t it = jb->inflight;
    cJSON *rec = cJSON_CreateObject(), *lost = cJSON_AddObjectToObject(rec, "lost");
    cJSON_AddNumberToObject(lost, "verdict", v);
    cJSON_AddStringToObject(lost, "why", why);
    char pend[4096];
    if (campaign_state_pending_put(k, j, it, rec, pend) == 0) {
      campaign_pool_lost(k, j, it, v, why);
      campaign_state_pending_done(k, pend);
    }
    jb->watermark = it;
    jb->programs++;
    jb->verdicts[v]++;
    jb->inflight = -1;
  }
  free(pending);
}

int campaign_pool_run(camp *k, double t0, af_err *err) {
  int rc = 0;
  for (int j = 0; j < k->o->jobs && !k->write_error; j++)
    if ((rc = campaign_pool_spawn(k, j, err))) return rc;
  double last_state = t0, last_progress = 0;
  for (;;) {
    double t = campaign_now();
    int alive = 0;
    struct pollfd pf[256];
    int map[256], n = 0;
    for (int j = 0; j < k->o->jobs && n < 256; j++)
      if (k->jobs[j].pid > 0) {
        pf[n] = (struct pollfd){k->jobs[j].fd, POLLIN, 0};
        map[n++] = j;
        alive++;
      }
    if (!alive || campaign_stop_requested || k->write_error || (k->o->time_s > 0 && t - t0 >= k->o->time_s)) break;
    int r = poll(pf, (nfds_t)n, 200);
    if (r < 0 && errno != EINTR) {
      rc = af_fail(err, "poll: %s", strerror(errno));
      break;
    }
    for (int q = 0; q < n && r > 0; q++) {
      int j = map[q];
      if (!(pf[q].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      char chunk[65536];
      ssize_t got = read(k->jobs[j].fd, chunk, sizeof chunk - 1);
      if (got > 0) {
        chunk[got] = 0;
        af_buf_puts(&k->jobs[j].in, chunk);
        campaign_wire_read(k, j);
      } else if (got == 0 || (got < 0 && errno != EINTR)) {
        campaign_pool_reap(k, j, 0);
        if (!k->jobs[j].finished && !campaign_stop_requested && (rc = campaign_pool_spawn(k, j, err))) return rc;
      }
    }
    t = campaign_now();
    for (int j = 0; j < k->o->jobs; j++) {
      job *jb = &k->jobs[j];
      /* the per-program deadline covers the converter's own work; minimizing has its own */
      double limit = jb->reducing || jb->tracing ? 1.5 * k->o->reduce_time_s + 2 * k->o->deadline_s + 5 : k->o->deadline_s;
      if (!jb->reducing && !jb->tracing && jb->batch > 1) limit *= jb->batch; /* n programs combined (--batch) */
      if (jb->pid > 0 && jb->inflight >= 0 && t - jb->since > limit) {
        kill(jb->pid, SIGKILL);
        campaign_pool_reap(k, j, 1);
        if ((rc = campaign_pool_spawn(k, j, err))) return rc;
      }
    }
    if (t - last_state >= 1.0 && !k->write_error) {
      af_err e2;
      if (k->idx_dirty && classes_index_save(k->o->out, k->idx, &e2)) campaign_state_write_failed(k, NULL, &e2);
      else k->idx_dirty = 0;
      if (!k->write_error && campaign_state_write(k, t - t0, &e2)) campaign_state_write_failed(k, NULL, &e2);
      last_state = t;
    }
    if (k->o->progress && t - last_progress >= 0.5) {
      campaign_progress(k, t - t0, 0);
      last_progress = t;
    }
  }
  return rc;
}

void campaign_pool_stop(camp *k) {
  for (int j = 0; j < k->o->jobs; j++)
    if (k->jobs[j].pid > 0) {
      job *jb = &k->jobs[j];
      kill(jb->pid, SIGKILL);
      /* a minimization the end of the search cuts: its program is deferred, not lost */
      if (!campaign_stop_requested && jb->reducing && jb->pending && jb->inflight >= 0) campaign_deferred_keep(k, j, jb->pending, 0);
      jb->finished = 1; /* other in-flight iterations are not counted: a resumed run redoes them */
      campaign_pool_reap(k, j, 0);
    }
}
