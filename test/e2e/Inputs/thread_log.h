/* thread_log.h - per-thread line logs for the end-to-end test programs.
 *
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
 *
 * thread_log(fmt, a, b, c, d, e) appends "<tid> <fmt's text>\n" to the
 * calling thread's own buffer (no lock but on a thread's first line), so
 * the program's logging does not order its threads; thread_log_write(path)
 * writes every thread's lines, thread by thread, once the program is done.
 * The checkers read them beside the tool's log, by thread id.
 */
#ifndef GRAINCHUNK_TEST_THREAD_LOG_H
#define GRAINCHUNK_TEST_THREAD_LOG_H
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#define THREAD_LOG_MAX 256
typedef struct {
  char *buf;
  size_t len, cap;
  long tid;
} thread_log_buf;
static thread_log_buf thread_logs[THREAD_LOG_MAX];
static int thread_log_count;
static pthread_mutex_t thread_log_mu = PTHREAD_MUTEX_INITIALIZER;
static __thread thread_log_buf *thread_log_me;

static void thread_log(const char *fmt, long long a, long long b, long long c,
                       long long d, long long e) {
  thread_log_buf *me = thread_log_me;
  if (!me) {
    pthread_mutex_lock(&thread_log_mu);
    me = thread_log_me = &thread_logs[thread_log_count++];
    pthread_mutex_unlock(&thread_log_mu);
    me->tid = syscall(SYS_gettid);
  }
  char line[160];
  int n = snprintf(line, sizeof line, "%ld ", me->tid);
  n += snprintf(line + n, sizeof line - (size_t)n, fmt, a, b, c, d, e);
  if (me->len + (size_t)n + 1 > me->cap) {
    me->cap = me->cap ? me->cap * 2 : 1 << 16;
    me->buf = (char *)realloc(me->buf, me->cap);
  }
  memcpy(me->buf + me->len, line, (size_t)n);
  me->len += (size_t)n;
  me->buf[me->len++] = '\n';
}

/* Writes every thread's lines to path (nothing if path is NULL). */
static void thread_log_write(const char *path) {
  FILE *f = path ? fopen(path, "w") : NULL;
  if (!f)
    return;
  for (int i = 0; i < thread_log_count; ++i)
    fwrite(thread_logs[i].buf, 1, thread_logs[i].len, f);
  fclose(f);
}
#endif
