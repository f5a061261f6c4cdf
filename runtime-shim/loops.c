/*===- loops.c - Layer 1: a thread's stack of open loops -------------------===*
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
 *
 * The stack of a thread's open loops (loops.h). Records live inline until
 * a nest is deeper than GC_INLINE_FRAMES; then the stack moves to a heap
 * block that doubles as needed and is freed when the thread ends (a
 * pthread key's destructor). If the heap refuses, the loop's record is not
 * stored but still counted, so begin and end events stay balanced.
 * Depends on libc only.
 *===----------------------------------------------------------------------===*/
#include "loops.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

static pthread_key_t heap_key;
static pthread_once_t heap_key_once = PTHREAD_ONCE_INIT;

static void free_frames(void *p) { free(p); }
static void make_heap_key(void) {
  if (pthread_key_create(&heap_key, free_frames))
    heap_key = (pthread_key_t)-1;
}

/* Room for one more record; 0 if the heap refused. */
static int grow(gc_loops *s) {
  if (!s->frames) {
    s->frames = s->inline_frames;
    s->cap = GC_INLINE_FRAMES;
  }
  if (s->depth < s->cap)
    return 1;
  if (s->depth > s->cap)
    return 0;
  int cap = s->cap * 2;
  gc_frame *f;
  if (s->frames == s->inline_frames) {
    f = malloc(sizeof *f * (size_t)cap);
    if (f)
      memcpy(f, s->inline_frames, sizeof s->inline_frames);
  } else {
    f = realloc(s->frames, sizeof *f * (size_t)cap);
  }
  if (!f)
    return 0;
  pthread_once(&heap_key_once, make_heap_key);
  if (heap_key != (pthread_key_t)-1)
    pthread_setspecific(heap_key, f); /* freed when the thread ends */
  s->frames = f;
  s->cap = cap;
  return 1;
}

static void set_top(gc_loops *s) {
  s->top = s->depth > 0 && s->depth <= s->cap ? &s->frames[s->depth - 1] : NULL;
}

gc_frame *gc_loops_open(gc_loops *s, int kind, int owned,
                        ompt_data_t *parallel_data, ompt_data_t *task_data,
                        const void *codeptr_ra) {
  gc_frame *f = NULL;
  if (grow(s)) {
    f = &s->frames[s->depth];
    f->parallel_data = parallel_data;
    f->task_data = task_data;
    f->kind = kind;
    f->owned = owned;
    f->codeptr_ra = codeptr_ra;
    f->ext = s->pending;
  }
  s->pending.sched = 0;
  s->depth++;
  s->pending_opened = s->depth;
  set_top(s);
  return f;
}

static int is_loop_of(const gc_frame *f, const ompt_data_t *parallel_data,
                      const ompt_data_t *task_data) {
  return f->parallel_data == parallel_data && f->task_data == task_data;
}

gc_frame *gc_loops_ending(const gc_loops *s, const ompt_data_t *parallel_data,
                          const ompt_data_t *task_data) {
  if (s->depth <= 0 || s->depth > s->cap)
    return NULL;
  gc_frame *f = &s->frames[s->depth - 1];
  return is_loop_of(f, parallel_data, task_data) ? f : NULL;
}

void gc_loops_close(gc_loops *s, const ompt_data_t *parallel_data,
                    const ompt_data_t *task_data) {
  if (s->depth > s->cap) { /* a record the heap had no room for */
    s->depth--;
    set_top(s);
    return;
  }
  for (int i = s->depth - 1; i >= 0; --i) {
    if (is_loop_of(&s->frames[i], parallel_data, task_data)) {
      s->depth = i;
      set_top(s);
      return;
    }
  }
  /* No open loop of this task: one that began before the library watched. */
}

gc_loop_ext *gc_loops_pend(gc_loops *s) {
  memset(&s->pending, 0, sizeof s->pending);
  s->pending_opened = 0;
  return &s->pending;
}

gc_frame *gc_loops_took_pending(const gc_loops *s) {
  if (!s->pending_opened || s->pending_opened != s->depth || s->depth > s->cap)
    return NULL;
  return &s->frames[s->depth - 1];
}
