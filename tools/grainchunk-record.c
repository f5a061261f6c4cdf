/*===- grainchunk-record.c - grainchunk-graph's recording OMPT tool -------===*
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
 *
 * An ordinary OMPT tool (found by libomp through OMP_TOOL_LIBRARIES, like
 * LLVM's Archer) that records every grain (loop chunk, explicit task) and
 * what is needed to place and time it, into per-thread binary files that
 * grainchunk-graph turns into grain graphs, traces and timelines.
 *
 * It knows grainchunk only through OMPT and include/grainchunk.h:
 * - extension events 81-84: registered with ompt_set_callback and used only
 *   when the answer is ompt_set_always (grainchunk's runtime library is in
 *   the process). Then chunks carry their creation time (create_duration)
 *   and tasks theirs (event_duration), measured with this tool's clock (83),
 *   and their flags; the standard cancel event is recorded too (which
 *   threads left a loop early: their chunks marked MAY_NOT_RUN may not
 *   have run).
 * - otherwise the standard events (dispatch ws_loop_chunk, work, task_create,
 *   task_schedule, implicit_task, sync_region_wait); creation times are then
 *   recorded as unmeasured, never guessed. grainchunk_get_chunk_info (found
 *   with dlsym) adds is_last and the loop's source location to a dispatch.
 * - always the work event of taskloops, with the program's call of the
 *   taskloop (found by unwinding, once per taskloop), which names its tasks.
 *
 * The recording (format 4, RECORD_VERSION; grainchunk-graph's reader must
 * agree), one directory per process:
 *   $GRAINCHUNK_RECORD_DIR/<host>.<pid>/   made when the tool starts; a
 *       fork child that runs OpenMP makes its own at its first event (libomp
 *       keeps the tool and its callbacks in the child and does not start it
 *       again; the tool drops what the child inherited), an exec'd program
 *       at its start; a pid that has one already: <host>.<pid>-2, -3...
 *     meta.txt     "key value" lines, written at the start: record_version,
 *                  record_bytes, clock (tsc|monotonic_ns), clock0, ns0,
 *                  ticks_per_ns (measured over 1 ms at the start) and
 *                  ticks_per_ns_error (relative), pid, ppid, host, rank,
 *                  rank_source, size (the MPI launcher's variables, NA),
 *                  exe, grainchunk_runtime, ext_*, answer_*; appended at a
 *                  normal end (finalize): clock1, ns1, threads,
 *                  lost_threads, records, dropped, stopped (only when
 *                  records were dropped: why the first thread that stopped
 *                  recording stopped, "file size limit (RLIMIT_FSIZE N
 *                  bytes)" or "write error (<strerror>)"), complete 1.
 *     maps.txt     /proc/self/maps, at the start and again at the end.
 *     thread-<n>.bin   the thread's records (rec_t, below), in order.
 *     thread-<n>.tail  only when the process did not reach finalize (or the
 *                  disk filled): the thread's ring, a header record whose t
 *                  is the stream index of the ring's first record, then
 *                  RING records. The stream is thread-<n>.bin's whole
 *                  records, then the ring's from index (those records -
 *                  header t), up to the first record whose kd is 0; a
 *                  record cut short at the end is ignored.
 * A crash, exit() inside a parallel region, abort() or SIGKILL leaves every
 * record written before it (the ring is a shared file mapping: the page
 * cache has it); meta.txt then has no "complete 1".
 *
 * Per thread: records go into its ring (RING 32-byte records, mapped and
 * faulted in once, when the thread starts); a full ring is appended to its
 * .bin file with one write(2) and reused. No lock, no atomic and no
 * allocation on the per-grain path. Nothing goes to stdout. A full disk
 * or the file size limit (ulimit -f) stops the thread's recording (counted
 * in dropped), never the program: no file of the tool grows past
 * RLIMIT_FSIZE, so the kernel never sends SIGXFSZ for the tool's writes,
 * and the program's signal dispositions and masks are left alone. Off
 * tmpfs, each .bin file's space is reserved 1 MiB ahead (without changing
 * its size) and released at finalize.
 *
 * GRAINCHUNK_RECORD_DIR   where the process directories go (required;
 *                         grainchunk-graph sets it; made if missing)
 * GRAINCHUNK_RECORD_NO_EXT=1  do not register 81-84 (test the fallback)
 *
 *===----------------------------------------------------------------------===*/
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <execinfo.h>
#include <fcntl.h>
#include <limits.h>
#include <link.h>
#include <omp-tools.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <time.h>
#include <unistd.h>
#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#endif

#include "grainchunk-record-format.h"
#include "grainchunk.h"

/* The records: grainchunk-record-format.h, shared with the reader. */

/* A thread's records go to a ring of RING records in a shared mapping of
 * its thread-<n>.tail file, mapped once; a full ring is appended to
 * thread-<n>.bin with write(2) and the ring reused. */
#define RING 6144 /* records: 192 KiB per thread */
/* Records: where a thread that stopped recording writes. */
#define SCRATCH 256
#define MAX_THREADS 4096
#define SRC_CACHE 64

typedef struct tbuf {
  rec_t *cur, *end; /* the next record, the end of the ring */
  uint64_t next_id; /* ids this thread hands out: number << 40 | counter */
  const char *src;  /* the last R_SOURCE */
  rec_t *hdr;       /* the tail file's mapping: header, then the ring */
  uint64_t base;    /* records in thread-<n>.bin: the ring's first's index */
  uint64_t dropped;
  uint64_t reserved; /* bytes of thread-<n>.bin's space reserved ahead */
  int fd, tfd, stopped, reserve; /* reserve: reserve space ahead (not tmpfs) */
  unsigned num, ring_n;          /* ring_n: the ring's records (<= RING) */
  const char *src_seen[SRC_CACHE];
  rec_t scratch[SCRATCH];
} tbuf_t;

static char dir[PATH_MAX - 64];  /* GRAINCHUNK_RECORD_DIR */
static char pdir[PATH_MAX - 32]; /* this process's directory in it */
static int have_pdir;            /* 0: not yet made (a fork child's) */
static _Atomic unsigned n_threads;
static tbuf_t *threads[MAX_THREADS];
static _Atomic uint64_t lost_threads;
static _Atomic int finalized;
/* initial-exec: one pointer of static TLS, no __tls_get_addr call per event
 * (the tool is loaded with dlopen, where the default model would call it). */
static __thread tbuf_t *me __attribute__((tls_model("initial-exec")));
static grainchunk_get_chunk_info_t get_info;
static int ext_time, ext_loop, ext_chunk, ext_task;
static int std_answer[64];
static uint64_t t0_clock, t0_ns;
static double ticks_per_ns, ticks_per_ns_err;

static tbuf_t *new_thread_buf(void);
static inline tbuf_t *thread_buf(void) {
  tbuf_t *b = me;
  return __builtin_expect(b != NULL, 1) ? b : new_thread_buf();
}

/*===---------------------------- the clock ------------------------------===*/
static inline uint64_t now(void) {
#if defined(__x86_64__) || defined(__i386__)
  return __rdtsc();
#else
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
#endif
}
static uint64_t now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}
/* A clock reading and a nanosecond reading taken together: the clock
 * read on both sides of clock_gettime, the tightest of 5 tries; *half: half
 * the bracket, the pair's uncertainty in ticks. */
static void clock_pair(uint64_t *c, uint64_t *ns, uint64_t *half) {
  uint64_t best = UINT64_MAX;
  for (int i = 0; i < 5; i++) {
    uint64_t a = now(), n = now_ns(), b = now();
    if (b - a < best) {
      best = b - a;
      *c = a + (b - a) / 2;
      *ns = n;
    }
  }
  *half = best / 2 + 1;
}

/* clock0/ns0, and the clock's ticks per ns measured over 1 ms of sleep (the
 * time-stamp counter runs at a constant rate): known from the start, so a
 * recording that never reaches finalize still has it. Its error, relative:
 * the two pairs' uncertainty (tens of ticks) over 1 ms of ticks, and
 * clock_gettime's 1 ns resolution over 10^6 ns: a few 10^-5. */
static void calibrate(void) {
  uint64_t h0, c1, n1, h1;
  clock_pair(&t0_clock, &t0_ns, &h0);
#if defined(__x86_64__) || defined(__i386__)
  struct timespec ms = {0, 1000000};
  while (nanosleep(&ms, &ms) && errno == EINTR)
    ;
  clock_pair(&c1, &n1, &h1);
  if (n1 > t0_ns && c1 > t0_clock) {
    ticks_per_ns = (double)(c1 - t0_clock) / (double)(n1 - t0_ns);
    ticks_per_ns_err = (double)(h0 + h1) / (double)(c1 - t0_clock) +
                       2.0 / (double)(n1 - t0_ns);
    return;
  }
#else
  (void)c1, (void)n1, (void)h1;
#endif
  ticks_per_ns = 1.0; /* the clock is CLOCK_MONOTONIC's ns */
  ticks_per_ns_err = 0;
}

/* The last reading of the time function on this thread (see on_ext_chunk). */
static __thread uint64_t last_reading
    __attribute__((tls_model("initial-exec")));

/* 83: grainchunk measures create_duration/event_duration with this. */
static double tool_time(void) {
  uint64_t v = now();
  last_reading = v;
  /* Below 2^63 (a counter that starts near 0 at boot): the signed
   * conversion, one instruction, gives the same double as the unsigned. */
  return (double)(int64_t)v;
}

/* A duration the runtime measured with our clock, as stored. Two readings
 * of the time-stamp counter around real work always differ, so 0 is the
 * runtime saying it could not time the event (a static chunk without the
 * plugin's chunk-end call, a chunk of a loop the plugin did not compile):
 * recorded as unmeasured, not as free. */
static uint64_t duration_bits(double v) {
  if (!ext_time || v == 0.0)
    return GC_UNMEASURED;
  uint64_t u;
  memcpy(&u, &v, sizeof u);
  return u;
}

/*===------------------------ per-thread buffers -------------------------===*/
/* Records go straight into the thread's ring, a shared mapping of its tail
 * file: what is written is in the page cache at once and outlives the
 * process however it ends (SIGKILL included). The ring's pages are mapped
 * and written once, when the thread starts, so the per-grain path takes no
 * page fault (on this machine the first store to a newly mapped page costs
 * 8-40 us: a file that grew under a moving mapping would cost 60-130 ns per
 * record). A thread whose records cannot be written stops recording: its
 * records go to a scratch area and are counted as dropped. */
static void ring_full(tbuf_t *b);

/* Room for n records (n <= SCRATCH) in the thread's ring. */
static inline rec_t *room(tbuf_t *b, uint32_t n) {
  if (__builtin_expect(b->cur + n > b->end, 0))
    ring_full(b);
  rec_t *r = b->cur;
  b->cur += n;
  return r;
}

/* Stores a record so that its kind, the word that makes it part of the
 * stream, lands last: a process killed mid-store leaves no half record. */
static inline void put(rec_t *r, uint64_t t, uint64_t a, uint64_t b, uint32_t c,
                       uint32_t kd) {
  r->t = t;
  r->a = a;
  r->b = b;
  r->c = c;
  __asm__ volatile("" ::: "memory");
  r->kd = kd;
}

static void emit_wide(tbuf_t *tb, uint32_t kind, uint64_t t, uint64_t a,
                      uint64_t b, uint64_t c, uint64_t e, uint32_t d) {
  rec_t *r = room(tb, 2);
  wide_t w = {.c = c, .e = e, .d = d};
  memcpy(&r[1], &w, sizeof w);
  put(&r[0], t, a, b, 0, kind | R_WIDE);
}

/* A record, wide when c, e or d do not fit the short form. */
static inline void emit(uint32_t kind, uint64_t t, uint64_t a, uint64_t b,
                        uint64_t c, uint64_t e, uint32_t d) {
  tbuf_t *tb = thread_buf();
  if (c <= UINT32_MAX && !e && d < (1u << 24))
    put(room(tb, 1), t, a, b, (uint32_t)c, kind | d << 8);
  else
    emit_wide(tb, kind, t, a, b, c, e, d);
}

/* A chunk: its creation time v (the runtime's measure with our clock; 0:
 * unmeasured) in whole clock ticks when it is one below 2^32 - 1, which
 * with the time-stamp counter it always is; otherwise as a double, wide. */
static inline void emit_chunk(uint64_t t, uint64_t lower, uint64_t upper,
                              double v, uint32_t flags) {
  tbuf_t *tb = thread_buf();
  uint32_t ticks = GC_NO_TICKS;
  if (ext_time && v != 0.0) {
    if (!(v > 0 && v < (double)GC_NO_TICKS && v == (double)(uint32_t)v)) {
      emit_wide(tb, R_CHUNK, t, lower, upper, duration_bits(v), 0, flags);
      return;
    }
    ticks = (uint32_t)v;
  }
  put(room(tb, 1), t, lower, upper, ticks, R_CHUNK | flags << 8);
}

static inline uint64_t new_id(void) { return ++thread_buf()->next_id; }

/* A chunk's source location (a loop's psource): the text once per thread
 * (its pointer is its key), and a R_SOURCE record when it changes. */
static void note_source(const char *s) {
  tbuf_t *b = thread_buf();
  if (b->src == s)
    return;
  unsigned h = (unsigned)(((uintptr_t)s >> 3) % SRC_CACHE);
  if (s && b->src_seen[h] != s) {
    b->src_seen[h] = s;
    size_t len = strnlen(s, 4096);
    size_t nrec = (len + sizeof(rec_t) - 1) / sizeof(rec_t);
    rec_t *r = room(b, 1 + (uint32_t)nrec);
    memset(&r[1], 0, nrec * sizeof(rec_t));
    memcpy(&r[1], s, len);
    put(&r[0], 0, (uintptr_t)s, 0, 0, R_STRING | (uint32_t)len << 8);
  }
  b->src = s;
  put(room(b, 1), 0, (uintptr_t)s, 0, 0, R_SOURCE);
}

/*===------------------------- standard events ---------------------------===*/
static void on_thread_begin(ompt_thread_t type, ompt_data_t *thread_data) {
  (void)thread_data;
  uint64_t t = now();
  tbuf_t *b = thread_buf();
  emit(R_THREAD, t, (b->next_id >> 40) - 1, (uint64_t)type, 0, 0, 0);
}

static void on_parallel_begin(ompt_data_t *task, const ompt_frame_t *frame,
                              ompt_data_t *par, unsigned req, int flags,
                              const void *ra) {
  (void)frame;
  (void)flags;
  uint64_t t = now();
  par->value = new_id();
  emit(R_PARALLEL_BEGIN, t, par->value, task ? task->value : 0, (uintptr_t)ra,
       0, req);
}

static void on_parallel_end(ompt_data_t *par, ompt_data_t *task, int flags,
                            const void *ra) {
  (void)task;
  (void)flags;
  (void)ra;
  emit(R_PARALLEL_END, now(), par->value, 0, 0, 0, 0);
}

static void on_implicit_task(ompt_scope_endpoint_t ep, ompt_data_t *par,
                             ompt_data_t *task, unsigned team, unsigned num,
                             int flags) {
  (void)flags;
  uint64_t t = now();
  if (ep != ompt_scope_begin) {
    emit(R_IMPLICIT_END, t, task->value, 0, 0, 0, 0);
    return;
  }
  task->value = new_id();
  emit(R_IMPLICIT_BEGIN, t, task->value, par ? par->value : 0, num, 0, team);
}

/* The OpenMP runtime's code: [rt_lo, rt_hi), from its lookup function. */
static uintptr_t rt_lo, rt_hi;

static int find_runtime(struct dl_phdr_info *info, size_t size, void *arg) {
  (void)size;
  uintptr_t p = (uintptr_t)arg, lo = UINTPTR_MAX, hi = 0;
  for (int i = 0; i < info->dlpi_phnum; i++) {
    const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
    if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X))
      continue;
    uintptr_t a = info->dlpi_addr + ph->p_vaddr;
    if (a < lo)
      lo = a;
    if (a + ph->p_memsz > hi)
      hi = a + ph->p_memsz;
  }
  if (p < lo || p >= hi)
    return 0;
  rt_lo = lo;
  rt_hi = hi;
  return 1;
}

static inline int in_runtime(const void *p) {
  return (uintptr_t)p >= rt_lo && (uintptr_t)p < rt_hi;
}

/* A taskloop begins (the standard work event, on the encountering thread,
 * inside the program's call of the runtime's taskloop entry). libomp gives
 * this event and the creation of every task of the taskloop the same code
 * pointer, a return address inside its own taskloop entry, for all
 * taskloops. The program's call is the first return address below the
 * runtime's frames: found once per taskloop (not per task) by unwinding,
 * which no longer allocates once primed (initialize) and takes no lock
 * (glibc 2.35+). */
static void on_taskloop(uint64_t t, ompt_data_t *par, ompt_data_t *task,
                        const void *ra) {
  uintptr_t site = (uintptr_t)ra;
  if (in_runtime(ra)) {
    void *f[32];
    int n = backtrace(f, 32), i = 0;
    while (i < n && !in_runtime(f[i]))
      i++; /* this tool (and whoever stands between it and the runtime) */
    while (i < n && in_runtime(f[i]))
      i++;
    if (i < n)
      site = (uintptr_t)f[i];
  }
  emit(R_TASKLOOP, t, task ? task->value : 0, par ? par->value : 0, site,
       (uintptr_t)ra, 0);
}

static int is_loop(ompt_work_t w) {
  return w == ompt_work_loop || w == ompt_work_distribute ||
         (w >= 10 && w <= 13); /* OpenMP 6's loop_static..loop_other */
}

static void on_work(ompt_work_t w, ompt_scope_endpoint_t ep, ompt_data_t *par,
                    ompt_data_t *task, uint64_t count, const void *ra) {
  uint64_t t = now();
  if (w == ompt_work_taskloop) {
    if (ep == ompt_scope_begin)
      on_taskloop(t, par, task, ra);
    return;
  }
  if (!ext_loop && is_loop(w))
    emit(ep == ompt_scope_begin ? R_LOOP_BEGIN : R_LOOP_END, t, task->value,
         par->value, (uintptr_t)ra, count, (uint32_t)w);
}

/* OpenMP 5.2's dispatch kinds and chunk, spelled out: the omp-tools.h of
 * libomp 14 (OpenMP 5.0) has neither. */
enum { DISPATCH_WS_LOOP_CHUNK = 3, DISPATCH_DISTRIBUTE_CHUNK = 5 };
typedef struct {
  uint64_t start, iterations;
} dispatch_chunk_t;

static void on_dispatch(ompt_data_t *par, ompt_data_t *task,
                        ompt_dispatch_t kind, ompt_data_t instance) {
  (void)par;
  (void)task;
  uint64_t t = now();
  if (kind != DISPATCH_WS_LOOP_CHUNK && kind != DISPATCH_DISTRIBUTE_CHUNK)
    return;
  const dispatch_chunk_t *c = instance.ptr;
  grainchunk_chunk_info_t info;
  uint32_t flags = kind == DISPATCH_DISTRIBUTE_CHUNK ? CH_DISTRIBUTE : 0;
  const char *src = NULL;
  if (get_info && get_info(&info)) {
    flags |= CH_LAST_ITER_KNOWN | (info.is_last ? CH_LAST_ITER : 0);
    src = info.psource;
  }
  note_source(src);
  emit_chunk(t, c->start, c->start + c->iterations - 1, 0, flags);
}

/* An explicit task was created; duration: its creation time's bits (event
 * 84) or GC_UNMEASURED (the standard event). */
static void task_created(uint64_t t, ompt_data_t *parent, ompt_data_t *task,
                         int flags, uint64_t duration, const void *ra) {
  if (!(flags & ompt_task_explicit))
    return;
  task->value = new_id();
  emit(R_TASK_CREATE, t, task->value, parent ? parent->value : 0, (uintptr_t)ra,
       duration, (uint32_t)flags);
}

static void on_task_create(ompt_data_t *parent, const ompt_frame_t *frame,
                           ompt_data_t *task, int flags, int deps,
                           const void *ra) {
  (void)frame;
  (void)deps;
  task_created(now(), parent, task, flags, GC_UNMEASURED, ra);
}

static void on_task_schedule(ompt_data_t *prior, ompt_task_status_t status,
                             ompt_data_t *next) {
  emit(R_TASK_SWITCH, now(), prior ? prior->value : 0, next ? next->value : 0,
       0, 0, (uint32_t)status);
}

static void on_sync_wait(ompt_sync_region_t kind, ompt_scope_endpoint_t ep,
                         ompt_data_t *par, ompt_data_t *task, const void *ra) {
  emit(ep == ompt_scope_begin ? R_SYNC_BEGIN : R_SYNC_END, now(),
       task ? task->value : 0, par ? par->value : 0, (uintptr_t)ra, 0,
       (uint32_t)kind);
}

/*===------------------------ extension events ---------------------------===*/
static void on_ext_loop(ext_loop_sched_t sched, ompt_scope_endpoint_t ep,
                        ompt_data_t *par, ompt_data_t *task, int is_signed,
                        int64_t step, const void *ra) {
  (void)is_signed;
  emit(ep == ompt_scope_begin ? R_LOOP_BEGIN : R_LOOP_END, now(),
       task ? task->value : 0, par ? par->value : 0, (uintptr_t)ra,
       (uint64_t)step, (uint32_t)ompt_work_loop | (uint32_t)sched << 8);
}

/* A measured create_duration ends with a reading of our time function
 * taken on this thread right before this call (include/grainchunk.h): that
 * reading is the chunk's start, and the clock is not read again. */
static void on_ext_chunk(ompt_data_t *task, int64_t lower, int64_t upper,
                         double create_duration, int flags) {
  (void)task;
  uint64_t t =
      ext_time && create_duration != 0.0 && last_reading ? last_reading : now();
  emit_chunk(t, (uint64_t)lower, (uint64_t)upper, create_duration,
             CH_EXT | CH_LAST_ITER_KNOWN |
                 (flags & GRAINCHUNK_CHUNK_LAST ? CH_LAST_ITER : 0) |
                 (flags & GRAINCHUNK_CHUNK_AHEAD ? CH_AHEAD : 0) |
                 (flags & GRAINCHUNK_CHUNK_MAY_NOT_RUN ? CH_MAY_NOT_RUN : 0));
}

/* A thread leaves a loop early: of its chunks marked CH_MAY_NOT_RUN in that
 * loop, an unknown number ran (grainchunk-graph leaves them out). */
static void on_cancel(ompt_data_t *task, int flags, const void *ra) {
  (void)ra;
  emit(R_CANCEL, now(), task ? task->value : 0, 0, 0, 0, (uint32_t)flags);
}

static void on_ext_task_create(ompt_data_t *parent, const ompt_frame_t *frame,
                               ompt_data_t *task, int flags, int deps,
                               double duration, const void *ra) {
  (void)frame;
  (void)deps;
  task_created(now(), parent, task, flags, duration_bits(duration), ra);
}

/*===------------------- the file size limit, and why -------------------===*/
/* The tool never grows a file past RLIMIT_FSIZE: the kernel would send the
 * writing thread SIGXFSZ, which kills the program (its default action). A
 * write that does not fit is not made; the thread stops recording (its
 * records up to there stay readable), and meta.txt says why (stopped). */
static uint64_t fsize_limit(void) {
  struct rlimit rl;
  if (getrlimit(RLIMIT_FSIZE, &rl) || rl.rlim_cur == RLIM_INFINITY)
    return UINT64_MAX;
  return (uint64_t)rl.rlim_cur;
}

/* Why the first thread that stopped recording stopped: STOP_LIMIT, or
 * STOP_ERRNO with the failed write's errno. Read at finalize. */
enum { STOP_NONE, STOP_LIMIT, STOP_ERRNO };
static _Atomic int stop_why;
static _Atomic int stop_errno;
static _Atomic uint64_t stop_limit;

static void note_stop(int why, int err) {
  int none = STOP_NONE;
  if (atomic_load(&stop_why) != STOP_NONE ||
      !atomic_compare_exchange_strong(&stop_why, &none, why))
    return;
  atomic_store(&stop_limit, fsize_limit());
  atomic_store(&stop_errno, err);
}

/* Writes p[0, len) at the end of the open file fd whose size is size,
 * whole, or nothing when the file would grow past the limit (0, noted). */
static int write_all(int fd, const char *p, size_t len);
static int append_within_limit(int fd, uint64_t size, const char *p,
                               size_t len) {
  uint64_t lim = fsize_limit();
  if (size > lim || len > lim - size) {
    note_stop(STOP_LIMIT, 0);
    return 0;
  }
  if (!write_all(fd, p, len)) {
    note_stop(STOP_ERRNO, errno);
    return 0;
  }
  return 1;
}

/*===---------------------- the process's directory ----------------------===*/
/* <dir>/<host>.<pid>: this process's recording. A pid that already has one
 * (a program that exec'd itself, a fork child that exec'd after recording)
 * gets <host>.<pid>-2, -3, ...; meta.txt's pid is the process's. */
static int make_pdir(void) {
  char host[256] = "localhost";
  gethostname(host, sizeof host - 1);
  host[sizeof host - 1] = 0;
  for (char *c = host; *c; c++)
    if (*c == '/' || *c == ' ')
      *c = '_';
  if (mkdir(dir, 0777) && errno != EEXIST) {
    fprintf(stderr, "grainchunk-record: cannot make %s: %s; not recording\n",
            dir, strerror(errno));
    return 0;
  }
  for (int k = 1; k < 1000; k++) {
    if (k == 1)
      snprintf(pdir, sizeof pdir, "%s/%s.%d", dir, host, (int)getpid());
    else
      snprintf(pdir, sizeof pdir, "%s/%s.%d-%d", dir, host, (int)getpid(), k);
    if (!mkdir(pdir, 0777))
      return have_pdir = 1;
    if (errno != EEXIST)
      break;
  }
  fprintf(stderr, "grainchunk-record: cannot make %s: %s; not recording\n",
          pdir, strerror(errno));
  return 0;
}

/* One key and value on a line: a value's line breaks become spaces. */
static void put_kv(FILE *f, const char *key, const char *v) {
  fprintf(f, "%s ", key);
  for (; *v; v++)
    fputc(*v == '\n' || *v == '\r' ? ' ' : *v, f);
  fputc('\n', f);
}

/* The MPI rank and world size, from the first launcher's variables set. */
static void put_rank(FILE *f) {
  static const char *vars[][2] = {
      {"OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE"},
      {"PMI_RANK", "PMI_SIZE"},
      {"PMIX_RANK", NULL},
      {"SLURM_PROCID", "SLURM_NTASKS"}};
  for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++) {
    const char *r = getenv(vars[i][0]),
               *n = vars[i][1] ? getenv(vars[i][1]) : 0;
    char *e;
    if (!r || !*r)
      continue;
    long rank = strtol(r, &e, 10);
    if (*e || rank < 0)
      continue; /* not a rank: the next launcher's */
    long size = n && *n ? strtol(n, &e, 10) : -1;
    fprintf(f, "rank %ld\nrank_source %s\n", rank, vars[i][0]);
    if (size > 0 && !*e)
      fprintf(f, "size %ld\n", size);
    else
      fprintf(f, "size NA\n");
    return;
  }
  fprintf(f, "rank NA\nrank_source NA\nsize NA\n");
}

/* A text for a file of the process's directory, made in memory (text and
 * len: put_text's), so that its size is known before it is written. */
typedef struct {
  FILE *f;
  char *text;
  size_t len;
} text_t;

static FILE *text_open(text_t *t) {
  t->text = NULL;
  t->len = 0;
  return t->f = open_memstream(&t->text, &t->len);
}

/* Writes (append: appends) the text to name in the process's directory,
 * whole, or with cut, the lines of it that the file size limit leaves
 * room for; 0 if nothing or not all was written. Frees the text. */
static int put_text(text_t *t, const char *name, int append, int cut) {
  int ok = t->f && fclose(t->f) == 0 && t->text;
  char path[PATH_MAX];
  snprintf(path, sizeof path, "%s/%s", pdir, name);
  int fd =
      ok ? open(path,
                O_WRONLY | O_CREAT | O_CLOEXEC | (append ? O_APPEND : O_TRUNC),
                0644)
         : -1;
  if (ok && fd < 0)
    fprintf(stderr, "grainchunk-record: cannot write %s: %s\n", path,
            strerror(errno));
  struct stat st;
  uint64_t size =
               fd >= 0 && append && !fstat(fd, &st) ? (uint64_t)st.st_size : 0,
           lim = fsize_limit(), len = t->len;
  if (fd >= 0 && cut && (size > lim || len > lim - size)) {
    len = size > lim ? 0 : lim - size;
    while (len && t->text[len - 1] != '\n')
      len--;
  }
  ok = fd >= 0 && append_within_limit(fd, size, t->text, len) && len == t->len;
  if (fd >= 0)
    close(fd);
  free(t->text);
  return ok;
}

/* Where the code was loaded: the reader turns code pointers into functions
 * and source lines with it. Cut at a line if it would outgrow the limit. */
static void write_maps(void) {
  text_t t;
  FILE *in = fopen("/proc/self/maps", "r"), *o = text_open(&t);
  char line[4096];
  while (in && o && fgets(line, sizeof line, in))
    fputs(line, o);
  if (in)
    fclose(in);
  put_text(&t, "maps.txt", 0, 1);
}

/* meta.txt as known at the start; finalize appends the rest. */
static int write_meta_start(void) {
  text_t t;
  FILE *f = text_open(&t);
  if (!f)
    return 0;
  fprintf(f, "record_version %d\nrecord_bytes %zu\n", RECORD_VERSION,
          sizeof(rec_t));
#if defined(__x86_64__) || defined(__i386__)
  fprintf(f, "clock tsc\n");
#else
  fprintf(f, "clock monotonic_ns\n");
#endif
  fprintf(f, "clock0 %llu\nns0 %llu\nticks_per_ns %.6f\n",
          (unsigned long long)t0_clock, (unsigned long long)t0_ns,
          ticks_per_ns);
  fprintf(f, "ticks_per_ns_error %.1e\n", ticks_per_ns_err);
  char host[256] = "";
  gethostname(host, sizeof host - 1);
  host[sizeof host - 1] = 0;
  fprintf(f, "pid %d\nppid %d\n", (int)getpid(), (int)getppid());
  put_kv(f, "host", host);
  put_rank(f);
  char exe[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
  exe[n > 0 ? n : 0] = 0;
  put_kv(f, "exe", n > 0 ? exe : "NA");
  fprintf(f, "grainchunk_runtime %d\n", get_info != NULL);
  fprintf(f,
          "ext_tool_time %d\next_loop %d\next_chunk %d\next_task_create %d\n",
          ext_time, ext_loop, ext_chunk, ext_task);
  fprintf(f, "answer_dispatch %d\nanswer_sync_region_wait %d\n",
          std_answer[ompt_callback_dispatch],
          std_answer[ompt_callback_sync_region_wait]);
  if (put_text(&t, "meta.txt", 0, 0))
    return 1;
  if (atomic_load(&stop_why) == STOP_LIMIT)
    fprintf(stderr,
            "grainchunk-record: %s/meta.txt would exceed the file size "
            "limit (ulimit -f); not recording\n",
            pdir);
  char path[PATH_MAX];
  snprintf(path, sizeof path, "%s/meta.txt", pdir);
  unlink(path); /* no recording rather than one without its meta.txt */
  rmdir(pdir);
  return 0;
}

static int start_pdir(void) {
  if (!make_pdir() || !write_meta_start())
    return 0;
  write_maps();
  return 1;
}

/*===---------------------------- thread files ---------------------------===*/
static pthread_mutex_t start_lock = PTHREAD_MUTEX_INITIALIZER;

/* Records that a stopped thread wrote into its scratch area, now dropped. */
static uint64_t in_scratch(tbuf_t *b) {
  return b->cur >= b->scratch && b->cur <= b->scratch + SCRATCH
             ? (uint64_t)(b->cur - b->scratch)
             : 0;
}

/* The thread's records so far: in its .bin file, then in its ring. */
static uint64_t stream_length(tbuf_t *b) {
  return b->base +
         (b->hdr && !b->stopped ? (uint64_t)(b->cur - (b->hdr + 1)) : 0);
}

/* The thread stops recording: what it wrote stays readable (the .bin file
 * and the ring), what comes after goes to its scratch area. */
static void stop(tbuf_t *b) {
  if (!b->stopped)
    b->base = stream_length(b);
  else
    b->dropped += in_scratch(b);
  b->stopped = 1;
  b->cur = b->scratch;
  b->end = b->scratch + SCRATCH;
}

static int write_all(int fd, const char *p, size_t len) {
  errno = 0;
  while (len) {
    ssize_t w = write(fd, p, len);
    if (w < 0 && errno == EINTR)
      continue;
    if (w <= 0) {
      if (!errno)
        errno = ENOSPC; /* a write of 0 bytes: no room */
      return 0;
    }
    p += w;
    len -= (size_t)w;
  }
  return 1;
}

/* Space of thread-<n>.bin reserved ahead of its records, without changing
 * its size (FALLOC_FL_KEEP_SIZE): appending a ring to a file whose blocks
 * are allocated already costs about half as much CPU time on ext4 (3.4-4.0
 * against 5.5-12.7 ns per record, docs/performance.md). Released at
 * finalize (ftruncate). Not on tmpfs, where it only moves the cost. */
#define RESERVE_AHEAD (1u << 20)

/* Appends the ring to the .bin file and empties it. In this order, so that
 * a process that dies at any point leaves a readable stream: the .bin
 * file's records, then the ring's from index (.bin's records - header),
 * up to the first zero record: 1. the records to .bin; 2. the ring zeroed;
 * 3. the header (the ring's first record's index in the stream) moved on.
 * 0: not written (the file size limit, a write error), the ring as it was. */
static int flush_ring(tbuf_t *b) {
  rec_t *ring = b->hdr + 1;
  size_t k = (size_t)(b->cur - ring);
  uint64_t size = b->base * sizeof(rec_t), bytes = k * sizeof(rec_t);
  if (b->reserve && size + bytes > b->reserved) {
    uint64_t lim = fsize_limit(), len = 0;
    if (lim > b->reserved)
      len =
          lim - b->reserved < RESERVE_AHEAD ? lim - b->reserved : RESERVE_AHEAD;
    if (!len ||
        fallocate(b->fd, FALLOC_FL_KEEP_SIZE, (off_t)b->reserved, (off_t)len))
      b->reserve = 0; /* not supported, the disk full or at the limit */
    else
      b->reserved += len;
  }
  if (!append_within_limit(b->fd, size, (const char *)ring, bytes))
    return 0;
  memset(ring, 0, k * sizeof(rec_t));
  __asm__ volatile("" ::: "memory");
  b->base += k;
  b->hdr->t = b->base;
  b->cur = ring;
  return 1;
}

static void ring_full(tbuf_t *b) {
  if (b->stopped || atomic_load(&finalized) || !flush_ring(b))
    stop(b);
}

/* The thread's .bin file and its ring (the .tail file: a header record,
 * then RING records, or fewer when the file size limit is lower, its space
 * reserved and its pages mapped and written now). 0: the thread cannot
 * record. */
static int open_thread_files(tbuf_t *b, unsigned i) {
  char path[PATH_MAX];
  snprintf(path, sizeof path, "%s/thread-%u.bin", pdir, i);
  b->fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  struct statfs fs;
  b->reserve = b->fd >= 0 && !fstatfs(b->fd, &fs) &&
               fs.f_type != 0x01021994 /* TMPFS_MAGIC */;
  snprintf(path, sizeof path, "%s/thread-%u.tail", pdir, i);
  b->tfd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  uint64_t lim = fsize_limit() / sizeof(rec_t);
  b->ring_n = lim > RING ? RING : lim > 64 ? (unsigned)lim - 1 : 0;
  size_t len = (b->ring_n + 1) * sizeof(rec_t);
  /* A full disk fails here, never as SIGBUS in a store. */
  int err = b->fd < 0 || b->tfd < 0 ? errno : 0;
  if (!err && !b->ring_n)
    note_stop(STOP_LIMIT, 0); /* the limit leaves no room for a ring */
  else if (!err)
    err = posix_fallocate(b->tfd, 0, (off_t)len);
  char *p = err || !b->ring_n ? MAP_FAILED
                              : mmap(NULL, len, PROT_READ | PROT_WRITE,
                                     MAP_SHARED | MAP_POPULATE, b->tfd, 0);
  if (p == MAP_FAILED) {
    if (err)
      note_stop(STOP_ERRNO, err);
    unlink(path); /* no ring: the stream is the .bin file */
    return 0;
  }
  for (size_t o = 0; o < len; o += 4096)
    ((volatile char *)p)[o] = 0;
  b->hdr = (rec_t *)p;
  b->cur = b->hdr + 1;
  b->end = b->cur + b->ring_n;
  return 1;
}

/* The thread's first event: its files, and (a fork child's first event)
 * the process's directory. */
static tbuf_t *new_thread_buf(void) {
  static tbuf_t sink = {.fd = -1, .tfd = -1, .stopped = 1};
  pthread_mutex_lock(&start_lock);
  int ok = have_pdir || start_pdir();
  pthread_mutex_unlock(&start_lock);
  unsigned i = ok && !atomic_load(&finalized) ? atomic_fetch_add(&n_threads, 1)
                                              : MAX_THREADS;
  tbuf_t *b = i < MAX_THREADS ? calloc(1, sizeof *b) : NULL;
  if (!b) { /* more threads than the table holds: this one goes unrecorded */
    atomic_fetch_add(&lost_threads, 1);
    sink.cur = sink.scratch;
    sink.end = sink.scratch + SCRATCH;
    return me = &sink;
  }
  b->num = i;
  b->next_id = ((uint64_t)i + 1) << 40;
  if (!open_thread_files(b, i))
    stop(b);
  threads[i] = b;
  me = b;
  put(room(b, 1), now(), i, 0, 0, R_THREAD);
  return b;
}

/* A fork child: nothing it inherited from the parent's recording is its
 * own. It drops the parent's mappings (its stores must never reach the
 * parent's files) and thread table, and makes its own directory at its
 * first event, if it has one. */
static void at_fork_child(void) {
  unsigned n = atomic_load(&n_threads);
  for (unsigned i = 0; i < n && i < MAX_THREADS; i++) {
    tbuf_t *b = threads[i];
    if (!b)
      continue;
    if (b->hdr)
      munmap(b->hdr, (b->ring_n + 1) * sizeof(rec_t));
    if (b->fd >= 0)
      close(b->fd);
    if (b->tfd >= 0)
      close(b->tfd);
    threads[i] = NULL; /* its memory is the parent's copy: left alone */
  }
  atomic_store(&n_threads, 0);
  atomic_store(&lost_threads, 0);
  me = NULL;
  have_pdir = 0;
  pthread_mutex_init(&start_lock, NULL);
}

/*===-------------------------- tool start -------------------------------===*/
static ompt_set_callback_t set_cb;

/* Registers one event; remembers and returns the runtime's answer. */
static int reg(int event, ompt_callback_t fn) {
  int rc = set_cb((ompt_callbacks_t)event, fn);
  if (event < 64)
    std_answer[event] = rc;
  return rc;
}

static int initialize(ompt_function_lookup_t lookup, int device,
                      ompt_data_t *tool_data) {
  (void)device;
  (void)tool_data;
  set_cb = (ompt_set_callback_t)lookup("ompt_set_callback");
  if (!set_cb) {
    fprintf(stderr, "grainchunk-record: no ompt_set_callback; not recording\n");
    return 0;
  }
  get_info = (grainchunk_get_chunk_info_t)dlsym(RTLD_DEFAULT,
                                                "grainchunk_get_chunk_info");
  ompt_interface_fn_t rt_fn = lookup("ompt_get_thread_data");
  if (rt_fn)
    dl_iterate_phdr(find_runtime, (void *)rt_fn);
  void *prime[2];
  backtrace(prime, 2); /* loads the unwinder now, not inside the program */
  const char *no_ext = getenv("GRAINCHUNK_RECORD_NO_EXT");
  if (!(no_ext && *no_ext == '1')) {
    /* The time function first: grainchunk measures durations only when a
     * clock is registered. Anything but ompt_set_always: not delivered. */
    ext_time =
        reg(ext_tool_time, (ompt_callback_t)tool_time) == ompt_set_always;
    ext_loop =
        reg(ext_callback_loop, (ompt_callback_t)on_ext_loop) == ompt_set_always;
    ext_chunk = reg(ext_callback_chunk, (ompt_callback_t)on_ext_chunk) ==
                ompt_set_always;
    ext_task = reg(ext_callback_task_create,
                   (ompt_callback_t)on_ext_task_create) == ompt_set_always;
  }
  /* Standard events: what grainchunk-graph must have answers always; the
   * others (dispatch: sometimes on a stock libomp) are best effort. */
  struct {
    int ev;
    ompt_callback_t fn;
    int need;
  } std[] = {
      {ompt_callback_thread_begin, (ompt_callback_t)on_thread_begin, 1},
      {ompt_callback_parallel_begin, (ompt_callback_t)on_parallel_begin, 1},
      {ompt_callback_parallel_end, (ompt_callback_t)on_parallel_end, 1},
      {ompt_callback_implicit_task, (ompt_callback_t)on_implicit_task, 1},
      {ompt_callback_task_schedule, (ompt_callback_t)on_task_schedule, 1},
      {ompt_callback_sync_region_wait, (ompt_callback_t)on_sync_wait, 0},
      /* Loops (without 81) and taskloops. */
      {ompt_callback_work, (ompt_callback_t)on_work, !ext_loop},
      {ext_chunk ? 0 : ompt_callback_dispatch, (ompt_callback_t)on_dispatch, 0},
      {ext_chunk ? ompt_callback_cancel : 0, (ompt_callback_t)on_cancel, 0},
      {ext_task ? 0 : ompt_callback_task_create,
       (ompt_callback_t)on_task_create, 1},
  };
  for (size_t i = 0; i < sizeof std / sizeof std[0]; i++) {
    if (!std[i].ev)
      continue;
    int rc = reg(std[i].ev, std[i].fn);
    if (std[i].need && rc != ompt_set_always) {
      fprintf(stderr,
              "grainchunk-record: event %d answered %d, not "
              "ompt_set_always; not recording\n",
              std[i].ev, rc);
      return 0;
    }
  }
  calibrate();
  if (!start_pdir())
    return 0;
  static int atfork_done;
  if (!atfork_done++)
    pthread_atfork(NULL, NULL, at_fork_child);
  return 1;
}

/* A normal end: each thread's ring appended to its .bin file and its .tail
 * file removed (a thread that stopped keeps its .tail: the reader takes
 * its records from it), and meta.txt completed. The ring stays mapped: a
 * thread that still records (exit() inside a parallel region) writes into
 * memory no file shows any more, then stops at its ring's end. */
static void finalize(ompt_data_t *tool_data) {
  (void)tool_data;
  if (!have_pdir)
    return; /* a fork child that recorded nothing */
  atomic_store(&finalized, 1);
  uint64_t t1_clock = now(), t1_ns = now_ns();
  unsigned n = atomic_load(&n_threads);
  if (n > MAX_THREADS)
    n = MAX_THREADS;
  uint64_t written = 0, dropped = 0;
  for (unsigned i = 0; i < n; i++) {
    tbuf_t *b = threads[i];
    if (!b)
      continue;
    if (!b->stopped && b->hdr && flush_ring(b)) {
      char path[PATH_MAX];
      snprintf(path, sizeof path, "%s/thread-%u.tail", pdir, i);
      unlink(path);
    }
    stop(b);
    /* The space reserved ahead, released: the file cut where its writes
     * ended (never grown, nor shortened). */
    off_t end = b->fd >= 0 ? lseek(b->fd, 0, SEEK_CUR) : -1;
    if (b->reserved && end >= 0)
      ftruncate(b->fd, end);
    written += b->base;
    dropped += b->dropped + in_scratch(b);
  }
  text_t t;
  FILE *f = text_open(&t);
  if (f) {
    fprintf(f, "clock1 %llu\nns1 %llu\n", (unsigned long long)t1_clock,
            (unsigned long long)t1_ns);
    fprintf(f, "threads %u\nlost_threads %llu\nrecords %llu\ndropped %llu\n", n,
            (unsigned long long)atomic_load(&lost_threads),
            (unsigned long long)written, (unsigned long long)dropped);
    /* Why records were dropped (a thread stopped recording). */
    int why = atomic_load(&stop_why);
    if (why == STOP_LIMIT)
      fprintf(f, "stopped file size limit (RLIMIT_FSIZE %llu bytes)\n",
              (unsigned long long)atomic_load(&stop_limit));
    else if (why == STOP_ERRNO)
      fprintf(f, "stopped write error (%s)\n",
              strerror(atomic_load(&stop_errno)));
    fprintf(f, "complete 1\n");
  }
  put_text(&t, "meta.txt", 1, 0);
  write_maps();
}

ompt_start_tool_result_t *ompt_start_tool(unsigned omp_version,
                                          const char *runtime_version) {
  (void)omp_version;
  (void)runtime_version;
  static ompt_start_tool_result_t result = {initialize, finalize, {0}};
  const char *d = getenv("GRAINCHUNK_RECORD_DIR");
  if (!d || !*d) {
    fprintf(stderr, "grainchunk-record: GRAINCHUNK_RECORD_DIR is not set; "
                    "not recording (run the program with grainchunk-graph)\n");
    return NULL;
  }
  snprintf(dir, sizeof dir, "%s", d);
  return &result;
}
