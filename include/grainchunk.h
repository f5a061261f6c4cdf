/*===- grainchunk.h - grainchunk runtime ABI and tool extensions ---------===*
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
 *
 * 1. Entry points that code compiled with -fplugin=libgrainchunk.so calls
 *    (the ABI of Langdal's TR4E runtime, plus the chunk-end call).
 * 2. For OMPT tools: the extension events of TR4E (loop, chunk, tool time)
 *    and grainchunk's task-creation event, registered through the
 *    ompt_set_callback a tool's initialize receives. See docs/extensions.md.
 * 3. For OMPT tools: grainchunk_get_chunk_info, more about a chunk inside a
 *    standard ompt_callback_dispatch event grainchunk delivers.
 *
 *===----------------------------------------------------------------------===*/
#ifndef GRAINCHUNK_H
#define GRAINCHUNK_H

#include <omp-tools.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* libomp's source-location descriptor, passed through untouched. */
typedef struct ident ident_t;

/* Bits of __kmpc_should_callback_per_chunk's answer. */
enum {
  GRAINCHUNK_WANT_CHUNKS = 1,   /* call __kmpc_for_static_chunk_* per chunk */
  GRAINCHUNK_WANT_CHUNK_END = 2 /* and __kmpc_for_static_chunk_end after it */
};

/* Called once per static loop per thread, before __kmpc_for_static_init_*.
 * Returns a set of GRAINCHUNK_WANT_* bits; 0 when no tool wants events. */
int32_t __kmpc_should_callback_per_chunk(ident_t *loc);

/* Called at the top of every chunk when the answer had GRAINCHUNK_WANT_CHUNKS.
 * lower/upper: inclusive bounds of the chunk in the iteration space passed to
 * __kmpc_for_static_init_* (Clang: 0-based logical iteration numbers), after
 * the clamp to the loop's last iteration. last: 1 iff the chunk holds the
 * loop's last iteration. */
void __kmpc_for_static_chunk_4(ident_t *loc, int32_t gtid, int32_t last,
                               int32_t lower, int32_t upper);
void __kmpc_for_static_chunk_4u(ident_t *loc, int32_t gtid, int32_t last,
                                uint32_t lower, uint32_t upper);
void __kmpc_for_static_chunk_8(ident_t *loc, int32_t gtid, int32_t last,
                               int64_t lower, int64_t upper);
void __kmpc_for_static_chunk_8u(ident_t *loc, int32_t gtid, int32_t last,
                                uint64_t lower, uint64_t upper);

/* Called at the end of every chunk's iterations (before the code steps to
 * the thread's next chunk) when the answer had GRAINCHUNK_WANT_CHUNK_END;
 * only ever asked for together with GRAINCHUNK_WANT_CHUNKS. */
void __kmpc_for_static_chunk_end(ident_t *loc, int32_t gtid);

/*===------------------- 2. extension events for tools -------------------===*
 * Numbers and signatures as in TR4E (81-83); 84 is grainchunk's. Register
 * them with the ompt_set_callback your initialize receives, casting to
 * ompt_callbacks_t / ompt_callback_t; the answer is ompt_set_always (5) when
 * grainchunk's runtime library is in the process and can deliver them, and
 * ompt_set_never (1) from a runtime without grainchunk. */
typedef enum ext_loop_sched_t {
  ext_loop_sched_static = 1,
  ext_loop_sched_dynamic = 2,
  ext_loop_sched_guided = 3
} ext_loop_sched_t;

#define ext_callback_loop 81
#define ext_callback_chunk 82
#define ext_tool_time 83
#define ext_callback_task_create 84

/* 81: begin before the thread's first chunk event of a worksharing or
 * distribute loop, end after its last chunk ran. loop_sched is the schedule
 * the runtime uses (runtime and auto resolved); is_iter_signed and step as
 * the program passed them to the runtime; codeptr_ra as in the standard
 * ompt_callback_work event of the same loop. */
typedef void (*ext_callback_loop_t)(ext_loop_sched_t loop_sched,
                                    ompt_scope_endpoint_t endpoint,
                                    ompt_data_t *parallel_data,
                                    ompt_data_t *task_data, int is_iter_signed,
                                    int64_t step, const void *codeptr_ra);

/* 82: every chunk of every loop that runs, once, on the thread that runs
 * it, before it runs. lower/upper: inclusive, in the iteration space passed
 * to the runtime (unsigned iteration variables: the bits of the value).
 * create_duration: the time (ext_tool_time's unit) this thread spent
 * producing the chunk; 0 without a time function and for AHEAD chunks.
 * When not 0, it ends with the last call of the tool's time function on
 * this thread, made right before this event, so a tool may take that
 * reading as the chunk's start instead of reading its clock again.
 * flags: GRAINCHUNK_CHUNK_* bits (TR4E's last_chunk is bit 0; chunks
 * reported at their start carry no other bit, so there it is 0 or 1). */
typedef void (*ext_callback_chunk_t)(ompt_data_t *task_data, int64_t lower,
                                     int64_t upper, double create_duration,
                                     int flags);

/* Bits of event 82's flags. Test bits, not the value. */
enum {
  /* The chunk holds the last iteration of the iteration space the loop
   * passed to the runtime (the loop's last iteration; for the loop of a
   * combined distribute parallel for, the last of the team's part), for
   * every schedule: what the runtime's own last flags and grainchunk_chunk_
   * info_t's is_last mean. A property of the chunk, known before it runs:
   * when cancellation ends the loop before that chunk, no chunk has it. */
  GRAINCHUNK_CHUNK_LAST = 1,
  /* Reported ahead: a static loop compiled without the plugin has no call
   * at a chunk's start, so every chunk of the thread is reported when the
   * loop's init call returns, before any runs; these are the thread's
   * chunks after its first. The event's time is not the chunk's start and
   * create_duration is 0. */
  GRAINCHUNK_CHUNK_AHEAD = 2,
  /* Reported ahead, in a worksharing loop that cancellation can end
   * (cancellation is on: OMP_CANCELLATION=true): the chunk runs unless the
   * thread leaves the loop before reaching it. A thread that leaves a loop
   * early gets the standard ompt_callback_cancel with ompt_cancel_loop
   * (activated or detected) before the loop's end; of its chunks with this
   * bit, the runtime cannot know which ran. A thread without that event in
   * the loop ran them all. */
  GRAINCHUNK_CHUNK_MAY_NOT_RUN = 4
};

/* 83: the tool's clock; grainchunk measures create_duration and
 * event_duration with it. */
typedef double (*ext_tool_time_t)(void);

/* 84: every explicit task, after the standard ompt_callback_task_create of
 * the same task (which still arrives for tools that register it), with the
 * same arguments plus event_duration: the time from the start of the task's
 * allocation to its creation event; 0 without a time function. */
typedef void (*ext_callback_task_create_t)(ompt_data_t *parent_task_data,
                                           const ompt_frame_t *parent_frame,
                                           ompt_data_t *new_task_data,
                                           int flags, int has_dependences,
                                           double event_duration,
                                           const void *codeptr_ra);

/*===------------- 3. more about a standard dispatch event ---------------===*
 * Inside an ompt_callback_dispatch call that grainchunk
 * delivers, describes the chunk further; find it with
 * dlsym(RTLD_DEFAULT, "grainchunk_get_chunk_info") so the tool still works
 * without grainchunk. */
typedef struct grainchunk_chunk_info_t {
  uint64_t start;      /* as in ompt_dispatch_chunk_t */
  uint64_t iterations; /* as in ompt_dispatch_chunk_t */
  int32_t is_last;     /* 1 iff the chunk holds the loop's last iteration */
  const char *psource; /* the loop's ";file;function;line;column;;" or NULL */
} grainchunk_chunk_info_t;

/* Returns 1 and fills *info inside a grainchunk-delivered chunk event on the
 * calling thread, else returns 0. */
int grainchunk_get_chunk_info(grainchunk_chunk_info_t *info);
typedef int (*grainchunk_get_chunk_info_t)(grainchunk_chunk_info_t *info);

#ifdef __cplusplus
}
#endif

#endif /* GRAINCHUNK_H */
