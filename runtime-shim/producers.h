/*===- producers.h - Layer 3: what start-up needs of the producers ---------===*
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
 *
 * The producers (producers.c) make the events the tool gets: the per-chunk
 * path, the forwarders of libomp's entry points and the OMPT callbacks the
 * library registers with the runtime. Start-up (layer 4) registers those
 * callbacks and points the forwarders as the registry (layer 2) derives;
 * this is all it calls here. The ABI entry points (include/grainchunk.h)
 * are the producers' too, called by the program.
 *===----------------------------------------------------------------------===*/
#ifndef GRAINCHUNK_PRODUCERS_H
#define GRAINCHUNK_PRODUCERS_H

#include "registry.h"

#include <omp-tools.h>

/* The library's own callback for a runtime event the registry routes to
 * the library (gc_registry_route: GC_ROUTE_LIBRARY), or NULL. */
ompt_callback_t gc_producer_callback(int runtime_event) GC_HIDDEN;

/* Resolves, at load time, the runtime's entry points the forwarders reach
 * through lookup order (the others when first needed). */
void gc_forwarders_init(void) GC_HIDDEN;
/* Whether the program's calls reach the forwarders: this library's
 * definitions come first in symbol lookup, and libomp's were found. */
int gc_forwarders_in_effect(void) GC_HIDDEN;
/* Points every forwarder at libomp's function, or at its wrapper while the
 * registry's events need it (gc_registry_forwarders). */
void gc_forwarders_point(void) GC_HIDDEN;
/* After the tool is gone: cancellation is asked again, slots repointed. */
void gc_forwarders_reset(void) GC_HIDDEN;

#ifdef GRAINCHUNK_TESTING
/* Every thread-local record and one-time warning, as in a fresh process
 * (the calling thread's). */
void gc_producers_testing_reset(void) GC_HIDDEN;
#endif

#endif
