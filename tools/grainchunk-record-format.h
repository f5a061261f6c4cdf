/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/*===- grainchunk-record-format.h - the recording's records -------------===*
 *
 * The one definition of the records that grainchunk-record.c writes and
 * grainchunk-graph reads (tools/graph/read/): their layout, kinds and
 * flags, and the OMPT constants the reader names. C and C++.
 *
 *===--------------------------------------------------------------------===*/
#ifndef GRAINCHUNK_RECORD_FORMAT_H
#define GRAINCHUNK_RECORD_FORMAT_H

#include <stdint.h>

/* One record: 32 bytes. Field use per kind: see the R_* list and
 * the reader of grainchunk-graph (tools/graph/read/Recording.cpp) includes
 * this header too (RECORD_VERSION).
 * Fields that do not fit (c above 32 bits, e not 0, d above 24 bits) make it
 * a wide record (R_WIDE set in kind): the next 32 bytes are a wide_t with
 * the whole c, e and d. A grain of a loop is one 32-byte record. */
enum { RECORD_VERSION = 4, RECORD_BYTES = 32 };
typedef struct rec {
  uint64_t t; /* clock() at the event */
  uint64_t a, b;
  uint32_t c;
  uint32_t kd; /* kind (R_*, and R_WIDE) | d << 8 */
} rec_t;
typedef struct wide {
  uint64_t c, e;
  uint32_t d, pad[3];
} wide_t;
#ifdef __cplusplus
static_assert(sizeof(rec_t) == RECORD_BYTES && sizeof(wide_t) == RECORD_BYTES,
              "record layout is part of the format");
#else
_Static_assert(sizeof(rec_t) == RECORD_BYTES && sizeof(wide_t) == RECORD_BYTES,
               "record layout is part of the format");
#endif
enum { R_WIDE = 0x80u };

enum {
  R_THREAD = 1,     /* a=thread number, b=ompt_thread_t */
  R_PARALLEL_BEGIN, /* a=parallel, b=encountering task, c=codeptr, d=req. team
                     */
  R_PARALLEL_END,   /* a=parallel */
  R_IMPLICIT_BEGIN, /* a=task, b=parallel, c=thread_num, d=team_size */
  R_IMPLICIT_END,   /* a=task */
  R_LOOP_BEGIN,     /* a=task, b=parallel, c=codeptr, e=count or step,
                       d=wstype | sched << 8 */
  R_LOOP_END,       /* a=task, b=parallel, d=wstype */
  R_CHUNK,          /* a=lower, b=upper, d=CH_* flags; the creation time:
                       c=whole clock ticks, NO_TICKS if unmeasured; wide:
                       c=a double's bits, UNMEASURED if unmeasured. Its source
                       location: the thread's last R_SOURCE. */
  R_TASK_CREATE,    /* a=new task, b=parent task, c=codeptr, e=duration bits or
                       UNMEASURED, d=flags */
  R_TASK_SWITCH,    /* a=prior task, b=next task, d=prior_status */
  R_SYNC_BEGIN,     /* a=task, b=parallel, c=codeptr, d=kind (wait begins) */
  R_SYNC_END,       /* a=task, b=parallel, d=kind (wait ends) */
  R_STRING,         /* a=key (pointer), d=length; the text follows in
                       ceil(d/32) records */
  R_SOURCE,         /* a=psource pointer (a R_STRING's key) or 0: the source
                       location of the thread's next chunks */
  R_TASKLOOP,       /* a=encountering task, b=parallel, c=the program's call
                       of the taskloop, e=the codeptr its tasks are created
                       with (inside the runtime); a taskloop begins */
  R_CANCEL,         /* a=task, d=ompt_cancel_flag_t flags: the standard
                       cancel event (a thread leaving a loop early) */
};
/* CH_LAST_ITER: holds the loop's last iteration (grainchunk_get_chunk_info,
 * event 82's GRAINCHUNK_CHUNK_LAST); CH_AHEAD, CH_MAY_NOT_RUN: event 82's
 * GRAINCHUNK_CHUNK_AHEAD and _MAY_NOT_RUN (include/grainchunk.h). */
enum {
  CH_LAST_ITER = 1,
  CH_LAST_ITER_KNOWN = 2,
  CH_DISTRIBUTE = 4,
  CH_EXT = 8,
  CH_AHEAD = 16,
  CH_MAY_NOT_RUN = 32
};
/* A chunk's creation ticks (narrow record) or a duration's bits (wide
 * record, task create) when the time was not measured. */
#define GC_NO_TICKS UINT32_MAX
#define GC_UNMEASURED UINT64_MAX

/* The OMPT values the records carry as the runtime passed them
 * (omp-tools.h, OpenMP 5.2 and 6.0), named for the reader, which does not
 * include omp-tools.h. */
enum {
  GC_SYNC_BARRIER = 1, /* ompt_sync_region_t */
  GC_SYNC_BARRIER_IMPLICIT = 2,
  GC_SYNC_BARRIER_EXPLICIT = 3,
  GC_SYNC_BARRIER_IMPLEMENTATION = 4,
  GC_SYNC_TASKWAIT = 5,
  GC_SYNC_TASKGROUP = 6,
  GC_SYNC_REDUCTION = 7,
  GC_SYNC_BARRIER_IMPLICIT_WORKSHARE = 8,
  GC_SYNC_BARRIER_IMPLICIT_PARALLEL = 9,
  GC_SYNC_BARRIER_TEAMS = 10,
};
enum {
  GC_WORK_LOOP_STATIC = 10, /* ompt_work_t of OpenMP 6 */
  GC_WORK_LOOP_DYNAMIC = 11,
  GC_WORK_LOOP_GUIDED = 12,
};
enum { GC_CANCEL_LOOP = 0x04 /* ompt_cancel_flag_t */ };
/* R_LOOP_BEGIN's d >> 8: grainchunk's loop event's ext_loop_sched_t
 * (include/grainchunk.h), 0 for the standard event. */
enum { GC_EXT_SCHED_DYNAMIC = 2, GC_EXT_SCHED_GUIDED = 3 };

#endif
