/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* Test OMPT tool for the extension events (include/grainchunk.h): registers
 * 81 (loop), 82 (chunk), 84 (task creation), optionally 83 (a clock), and
 * the standard work, task_create and cancel events to compare against. It
 * writes one line per event, prefixed with the OS thread id, in per-thread
 * buffers written out at the end (the order within a thread is what the
 * checker needs).
 *
 * EXT_TOOL_OUT=<file>       the log (required)
 * EXT_TOOL_CLOCK=tsc|ns|none  the time function: the x86 cycle counter,
 *                           clock_gettime in ns, or none registered
 *
 * Log lines (<tid> first):
 *   R <event> <answer>                     registration answer
 *   Lb|Le <sched> <signed> <step> <ra-ok>  loop begin/end; ra-ok (begin):
 *                                          1 if its codeptr_ra equals the
 *                                          standard work begin's just before
 *   We <ok>                                the standard work end after an
 *                                          Le: 1 if their codeptr_ra agree
 *   C <lower> <upper> <duration> <flags> <ends>  chunk (GRAINCHUNK_CHUNK_*
 *                                          flags; ends: 1 if a duration
 *                                          is 0 or ends at the thread's
 *                                          last clock reading)
 *   X <flags>                              the standard ompt_callback_cancel
 *   T <flags> <deps> <duration> <ok>       task creation (84); ok: 1 if the
 *                                          standard task_create with the
 *                                          same task came just before
 *   S <flags>                              standard task_create
 */
#define _GNU_SOURCE
#include "grainchunk.h"

#include <omp-tools.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#if defined(__x86_64__)
#include <x86intrin.h>
#endif

#define MAX_THREADS 256
typedef struct {
  char *buf;
  size_t len, cap;
  long tid;
  const void *work_ra; /* the last standard work event's codeptr_ra */
  int work_endpoint;
  ompt_data_t *created; /* the last standard task_create's new task */
  const void *loop_end_ra;
  int loop_end_pending;
  double clock_read[16]; /* the thread's last readings of the clock (83) */
  unsigned n_clock_read;
} tbuf;

static tbuf bufs[MAX_THREADS];
static int nbufs;
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static __thread tbuf *me;

static tbuf *self(void) {
  if (!me) {
    pthread_mutex_lock(&mu);
    if (nbufs == MAX_THREADS)
      abort();
    me = &bufs[nbufs++];
    pthread_mutex_unlock(&mu);
    me->tid = syscall(SYS_gettid);
  }
  return me;
}

static void emit(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void emit(const char *fmt, ...) {
  tbuf *b = self();
  char line[256];
  int n = snprintf(line, sizeof line, "%ld ", b->tid);
  va_list ap;
  va_start(ap, fmt);
  n += vsnprintf(line + n, sizeof line - (size_t)n, fmt, ap);
  va_end(ap);
  if (b->len + (size_t)n + 1 > b->cap) {
    b->cap = b->cap ? b->cap * 2 : 1 << 16;
    b->buf = realloc(b->buf, b->cap);
    if (!b->buf)
      abort();
  }
  memcpy(b->buf + b->len, line, (size_t)n);
  b->len += (size_t)n;
  b->buf[b->len++] = '\n';
}

static double remember(double v) {
  tbuf *b = self();
  b->clock_read[b->n_clock_read++ % 16] = v;
  return v;
}

static double tsc_clock(void) {
#if defined(__x86_64__)
  return remember((double)__rdtsc());
#else
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return remember(ts.tv_sec * 1e9 + ts.tv_nsec);
#endif
}
static double ns_clock(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return remember(ts.tv_sec * 1e9 + ts.tv_nsec);
}

/* The contract of a measured create_duration (include/grainchunk.h): it is
 * the thread's last clock reading minus one of its earlier readings. */
static int ends_at_last_reading(double duration) {
  tbuf *b = self();
  unsigned n = b->n_clock_read;
  if (!n)
    return 0;
  double last = b->clock_read[(n - 1) % 16];
  for (unsigned k = 2; k <= n && k <= 16; k++)
    if (last - b->clock_read[(n - k) % 16] == duration)
      return 1;
  return 0;
}

static void on_work(ompt_work_t wstype, ompt_scope_endpoint_t endpoint,
                    ompt_data_t *pd, ompt_data_t *td, uint64_t count,
                    const void *ra) {
  (void)wstype, (void)pd, (void)td, (void)count;
  tbuf *b = self();
  b->work_ra = ra;
  b->work_endpoint = endpoint;
  if (endpoint == ompt_scope_end && b->loop_end_pending) {
    emit("We %d", b->loop_end_ra == ra);
    b->loop_end_pending = 0;
  }
}

static void on_loop(ext_loop_sched_t sched, ompt_scope_endpoint_t endpoint,
                    ompt_data_t *pd, ompt_data_t *td, int is_signed,
                    int64_t step, const void *ra) {
  (void)pd, (void)td;
  tbuf *b = self();
  /* begin: right after the standard begin; end: right before the standard
   * end, which compares its address (the We line). */
  int ok = endpoint == ompt_scope_begin
               ? (b->work_endpoint == ompt_scope_begin && b->work_ra == ra)
               : ra != NULL;
  if (endpoint == ompt_scope_end) {
    b->loop_end_ra = ra;
    b->loop_end_pending = 1;
  }
  emit("L%c %d %d %lld %d", endpoint == ompt_scope_begin ? 'b' : 'e',
       (int)sched, is_signed, (long long)step, ok);
}

static void on_chunk(ompt_data_t *td, int64_t lower, int64_t upper,
                     double duration, int flags) {
  (void)td;
  emit("C %lld %lld %.17g %d %d", (long long)lower, (long long)upper, duration,
       flags, duration == 0 || ends_at_last_reading(duration));
}

static void on_cancel(ompt_data_t *td, int flags, const void *ra) {
  (void)td, (void)ra;
  emit("X %d", flags);
}

static void on_task_create(ompt_data_t *parent, const ompt_frame_t *frame,
                           ompt_data_t *task, int flags, int deps,
                           const void *ra) {
  (void)parent, (void)frame, (void)deps, (void)ra;
  self()->created = task;
  emit("S %d", flags);
}

static void on_ext_task(ompt_data_t *parent, const ompt_frame_t *frame,
                        ompt_data_t *task, int flags, int deps, double duration,
                        const void *ra) {
  (void)parent, (void)frame, (void)ra;
  tbuf *b = self();
  emit("T %d %d %.17g %d", flags, deps, duration, b->created == task);
}

static int initialize(ompt_function_lookup_t lookup, int dev,
                      ompt_data_t *data) {
  (void)dev, (void)data;
  ompt_set_callback_t set = (ompt_set_callback_t)lookup("ompt_set_callback");
  const char *clk = getenv("EXT_TOOL_CLOCK");
  ext_tool_time_t fn = !clk || !strcmp(clk, "tsc") ? tsc_clock
                       : !strcmp(clk, "ns")        ? ns_clock
                                                   : NULL;
  if (fn)
    emit("R 83 %d", set((ompt_callbacks_t)ext_tool_time, (ompt_callback_t)fn));
  emit("R work %d", set(ompt_callback_work, (ompt_callback_t)on_work));
  emit("R task_create %d",
       set(ompt_callback_task_create, (ompt_callback_t)on_task_create));
  emit("R cancel %d", set(ompt_callback_cancel, (ompt_callback_t)on_cancel));
  emit("R 81 %d",
       set((ompt_callbacks_t)ext_callback_loop, (ompt_callback_t)on_loop));
  emit("R 82 %d",
       set((ompt_callbacks_t)ext_callback_chunk, (ompt_callback_t)on_chunk));
  emit("R 84 %d", set((ompt_callbacks_t)ext_callback_task_create,
                      (ompt_callback_t)on_ext_task));
  ompt_get_callback_t get = (ompt_get_callback_t)lookup("ompt_get_callback");
  ompt_callback_t cb = NULL;
  emit("G 82 %d", get && get((ompt_callbacks_t)ext_callback_chunk, &cb) == 1 &&
                      cb == (ompt_callback_t)on_chunk);
  return 1;
}

static void finalize(ompt_data_t *data) {
  (void)data;
  const char *path = getenv("EXT_TOOL_OUT");
  FILE *f = path ? fopen(path, "w") : stderr;
  if (!f)
    abort();
  for (int i = 0; i < nbufs; ++i)
    fwrite(bufs[i].buf, 1, bufs[i].len, f);
  if (f != stderr)
    fclose(f);
}

ompt_start_tool_result_t *ompt_start_tool(unsigned v, const char *rt) {
  (void)v, (void)rt;
  static ompt_start_tool_result_t r = {initialize, finalize, {0}};
  return &r;
}
