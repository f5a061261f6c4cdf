/*===- grainchunk.h - grainchunk runtime ABI and tool extension ----------===*
 *
 * Entry points that code compiled with -fplugin=libgrainchunk.so calls (the
 * ABI of Langdal's TR4E runtime), and the one extension an OMPT tool may use
 * on top of the standard ompt_callback_dispatch events.
 *
 *===----------------------------------------------------------------------===*/
#ifndef GRAINCHUNK_H
#define GRAINCHUNK_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* libomp's source-location descriptor, passed through untouched. */
typedef struct ident ident_t;

/* Bits of __kmpc_should_callback_per_chunk's answer. */
enum {
  GRAINCHUNK_WANT_CHUNKS = 1 /* call __kmpc_for_static_chunk_* per chunk */
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

/* Tool extension. Inside an ompt_callback_dispatch call that grainchunk
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
