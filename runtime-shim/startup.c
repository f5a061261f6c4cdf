/*===- startup.c - Layer 4: finding and chaining the tool ------------------===*
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
 *
 * libgrainchunk-rt sits between libomp and the user's OMPT tool:
 *
 *   libomp --its own ompt_start_tool/dlsym GOT entries--> library
 *          --the same call, once--> user's tool's ompt_start_tool
 *
 * - The library takes no part in libomp's search for a tool: it defines no
 *   ompt_start_tool. When it is loaded it redirects the OpenMP runtime's own
 *   imports of ompt_start_tool and dlsym (got_hook.c), so that whichever
 *   ompt_start_tool libomp calls (one in the executable, in a library, in
 *   OMP_TOOL_LIBRARIES, Archer) is called exactly once, by libomp, as without
 *   grainchunk; only an accepting tool's result is replaced by the
 *   library's, whose initialize hands the tool a lookup function whose
 *   ompt_set_callback/ompt_get_callback the library observes; everything
 *   else is the runtime's own.
 * - The tool's ompt_set_callback for an event the registry keeps (layer 2)
 *   stores the callback there and applies what the registry then derives:
 *   the runtime's registrations (the tool's own callback, or the
 *   producers' of layer 3, or none), the forwarders' slots and the chunk
 *   flags. Any other event goes to the runtime untouched.
 *
 * Environment: GRAINCHUNK_VERBOSE=stderr|stdout|<file> logs each
 * ompt_start_tool libomp called and its answer; OMP_TOOL=disabled (libomp's)
 * turns everything off.
 *
 * Depends on libc and libdl only; it calls libomp only through the OMPT
 * lookup function libomp hands it (and redirects two of libomp's own
 * imports, see got_hook.c).
 *===----------------------------------------------------------------------===*/
#define _GNU_SOURCE
#include "got_hook.h"
#include "producers.h"
#include "registry.h"

#include <dlfcn.h>
#include <link.h>
#include <omp-tools.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

typedef ompt_start_tool_result_t *(*gc_start_tool_fn)(unsigned, const char *);

/* Set once while the runtime initializes the tool, read concurrently after. */
static ompt_start_tool_result_t *tool_result; /* the user's tool */
static ompt_function_lookup_t rt_lookup;
static ompt_set_callback_t rt_set_callback;
static ompt_get_callback_t rt_get_callback;
/* The runtime's answer for the work callback (ompt_set_never before). */
static int work_answer = ompt_set_never;
static atomic_int warned_order; /* one-time warning given */
static FILE *verbose_out;

static void gc_log(const char *fmt, ...) {
  if (!verbose_out)
    return;
  va_list ap;
  va_start(ap, fmt);
  fputs("grainchunk: ", verbose_out);
  vfprintf(verbose_out, fmt, ap);
  fputc('\n', verbose_out);
  fflush(verbose_out);
  va_end(ap);
}

static void open_verbose(void) {
  const char *v = getenv("GRAINCHUNK_VERBOSE");
  if (!v || !*v || !strcasecmp(v, "disabled") || !strcmp(v, "0"))
    return;
  if (!strcmp(v, "stderr") || !strcmp(v, "1"))
    verbose_out = stderr;
  else if (!strcmp(v, "stdout"))
    verbose_out = stdout;
  else if (!(verbose_out = fopen(v, "w"))) {
    fprintf(stderr,
            "grainchunk: cannot open GRAINCHUNK_VERBOSE file '%s'; logging to "
            "stderr\n",
            v);
    verbose_out = stderr;
  }
}

/*===--------------- applying the registry's registrations ----------------===*/

/* Registers with the runtime what the registry routes one of its events
 * to; returns the runtime's answer. */
static int register_with_runtime(int event) {
  gc_route route = gc_registry_route(event);
  ompt_callback_t cb = route == GC_ROUTE_LIBRARY ? gc_producer_callback(event)
                       : route == GC_ROUTE_TOOL
                           ? gc_registry_tool_callback(event)
                           : NULL;
  return rt_set_callback((ompt_callbacks_t)event, cb);
}

/* Applies what the registry derives after a change of event's callback
 * (syncs: GC_SYNC_*, in their order). Returns the runtime's answer for
 * event's own registration, if it was one of those made. */
static int sync(int syncs, int event) {
  int answer = ompt_set_error;
  if (syncs & GC_SYNC_FORWARDERS)
    gc_forwarders_point();
  if (syncs & GC_SYNC_DISPATCH) {
    int rc = register_with_runtime(ompt_callback_dispatch);
    if (event == ompt_callback_dispatch)
      answer = rc;
  }
  if (syncs & GC_SYNC_WORK) {
    work_answer = register_with_runtime(ompt_callback_work);
    gc_registry_derive_flags(work_answer);
    if (event == ompt_callback_work)
      answer = work_answer;
  }
  if (syncs & GC_SYNC_TASKS) {
    int rc_create = register_with_runtime(ompt_callback_task_create);
    int rc_sched = register_with_runtime(ompt_callback_task_schedule);
    if (event == ompt_callback_task_create)
      answer = rc_create;
    else if (event == ompt_callback_task_schedule)
      answer = rc_sched;
  }
  return answer;
}

static int refused(int answer) {
  return answer == ompt_set_error || answer == ompt_set_never;
}

/* The tool's answer for its dispatch callback: the library delivers chunk
 * events itself even if this runtime cannot, given the work callback. */
static int dispatch_answer(ompt_callback_t cb, int rc) {
  int ok = cb && !refused(work_answer);
  gc_log("tool %s ompt_callback_dispatch (runtime answer %d); chunk events "
         "%s",
         cb ? "registered" : "cleared", rc, ok ? "on" : "off");
  if (cb && !ok)
    gc_log("the runtime refused ompt_callback_work (answer %d), which the "
           "shim needs to place chunks; chunk events stay off",
           work_answer);
  if (ok && rc < ompt_set_sometimes)
    rc = ompt_set_sometimes;
  return rc;
}

/*===----------------- what the tool sees of the runtime ------------------===*/

static int shim_set_callback(ompt_callbacks_t event, ompt_callback_t cb) {
  const gc_event *e = gc_registry_event((int)event);
  if (!e)
    return rt_set_callback(event, cb);
  if (cb && e->forwarded && !gc_forwarders_in_effect()) {
    if (!atomic_exchange(&warned_order, 1))
      fprintf(stderr,
              "grainchunk: the tool asked for extension event %d, but the "
              "program's calls to the OpenMP runtime do not pass through "
              "libgrainchunk-rt (it must come before the OpenMP runtime in "
              "the program's NEEDED entries: link the program itself with "
              "`grainchunk-config --ldflags` or grainchunk::grainchunk, "
              "before any explicit -lomp, or LD_PRELOAD it); extension "
              "events are off.\n",
              (int)event);
    return ompt_set_never;
  }
  gc_registry_set(e->id, cb);
  int rc = sync(e->syncs, (int)event);
  if (cb && e->needs_work && refused(work_answer)) {
    /* The runtime cannot tell where loops begin and end. */
    gc_registry_set(e->id, NULL);
    sync(e->syncs, (int)event);
    return ompt_set_never;
  }
  if (event == ompt_callback_dispatch)
    return dispatch_answer(cb, rc);
  return e->runtime_answer ? rc : ompt_set_always;
}

static int shim_get_callback(ompt_callbacks_t event, ompt_callback_t *cb) {
  const gc_event *e = gc_registry_event((int)event);
  if (!e)
    return rt_get_callback ? rt_get_callback(event, cb) : 0;
  ompt_callback_t c = gc_registry_get(e->id);
  if (!c)
    return 0;
  if (cb)
    *cb = c;
  return 1;
}

static ompt_interface_fn_t shim_lookup(const char *name) {
  if (!strcmp(name, "ompt_set_callback"))
    return rt_set_callback ? (ompt_interface_fn_t)shim_set_callback : NULL;
  if (!strcmp(name, "ompt_get_callback"))
    return (ompt_interface_fn_t)shim_get_callback;
  return rt_lookup(name);
}

/* The tool is gone (it declined in initialize, or finalized). */
static void forget_tool(void) {
  gc_registry_forget_tool();
  atomic_store(&warned_order, 0);
  gc_forwarders_reset();
}

static int shim_initialize(ompt_function_lookup_t lookup,
                           int initial_device_num, ompt_data_t *tool_data) {
  (void)tool_data;
  rt_lookup = lookup;
  rt_set_callback = (ompt_set_callback_t)lookup("ompt_set_callback");
  rt_get_callback = (ompt_get_callback_t)lookup("ompt_get_callback");
  if (!rt_set_callback)
    gc_log("the runtime has no ompt_set_callback; chunk events stay off");
  int rc = tool_result->initialize(shim_lookup, initial_device_num,
                                   &tool_result->tool_data);
  gc_log("tool initialize returned %d; chunk events %s", rc,
         rc && atomic_load(&gc_chunks_enabled) ? "on" : "off");
  if (!rc)
    forget_tool();
  return rc;
}

static void shim_finalize(ompt_data_t *tool_data) {
  (void)tool_data;
  forget_tool();
  if (tool_result->finalize)
    tool_result->finalize(&tool_result->tool_data);
}

static ompt_start_tool_result_t shim_result = {
    shim_initialize, shim_finalize, {0}};

/*===----------------------- the tool libomp starts -----------------------===*/

/* libomp calls the ompt_start_tool it found; got_hook.c routes that call
 * here. The tool's function runs exactly once, with libomp's arguments; a
 * NULL answer goes back to libomp untouched, so its search goes on as
 * without the library. An accepting tool is chained behind the library. */
static ompt_start_tool_result_t *start_tool(gc_start_tool_fn fn,
                                            unsigned omp_version,
                                            const char *runtime_version) {
  if (!atomic_exchange(&gc_tool_search_started, 1))
    open_verbose();
  Dl_info di;
  const char *who =
      dladdr((void *)fn, &di) && di.dli_fname ? di.dli_fname : "?";
  ompt_start_tool_result_t *res = fn(omp_version, runtime_version);
  gc_log("%s called the ompt_start_tool of %s: %s",
         runtime_version ? runtime_version : "the runtime", who,
         res ? "accepted" : "declined");
  if (!res || tool_result)
    return res;
  tool_result = res;
  return &shim_result;
}

/* The process's first ompt_start_tool, which libomp's call through its PLT
 * reaches (the executable's, else the first library's, maybe libomp's own
 * weak one that looks further with RTLD_NEXT). */
static ompt_start_tool_result_t *start_first_tool(unsigned omp_version,
                                                  const char *runtime_version) {
  gc_start_tool_fn fn =
      (gc_start_tool_fn)dlsym(RTLD_DEFAULT, "ompt_start_tool");
  return fn ? start_tool(fn, omp_version, runtime_version) : NULL;
}

/* The ompt_start_tool that libomp's last dlsym(handle, "ompt_start_tool")
 * returned (OMP_TOOL_LIBRARIES, Archer); libomp calls it right away. */
static gc_start_tool_fn looked_up;
static ompt_start_tool_result_t *
start_looked_up_tool(unsigned omp_version, const char *runtime_version) {
  return start_tool(looked_up, omp_version, runtime_version);
}

/* Whether handle is this library (by one of its own functions' address:
 * plain names may mean another object's definitions). */
static int is_self(void *handle) {
  struct link_map *lm = NULL;
  Dl_info self;
  return dlinfo(handle, RTLD_DI_LINKMAP, &lm) == 0 && lm && lm->l_name &&
         dladdr((void *)is_self, &self) && self.dli_fname &&
         !strcmp(lm->l_name, self.dli_fname);
}

/* libomp's dlsym. Anything but a handle's ompt_start_tool is a tail call, so
 * the C library still sees libomp as the caller (RTLD_NEXT). */
static void *runtime_dlsym(void *handle, const char *name) {
  if (handle != RTLD_NEXT && handle != RTLD_DEFAULT && name &&
      !strcmp(name, "ompt_start_tool")) {
    if (is_self(handle))
      fprintf(stderr,
              "grainchunk: libgrainchunk-rt is listed in OMP_TOOL_LIBRARIES, "
              "where the program cannot call it; it is not a tool. Link the "
              "program with it or LD_PRELOAD it, and list only your own tool "
              "in OMP_TOOL_LIBRARIES.\n");
    void *fn = dlsym(handle, name);
    if (!fn)
      return NULL;
    looked_up = (gc_start_tool_fn)fn;
    return (void *)start_looked_up_tool;
  }
  __attribute__((musttail)) return dlsym(handle, name);
}

__attribute__((constructor)) static void hook_runtime(void) {
  gc_hook_runtime((void *)start_first_tool, (void *)runtime_dlsym);
  gc_forwarders_init();
}

#ifdef GRAINCHUNK_TESTING
/* Unit tests only: forget everything, as in a fresh process. */
GC_EXPORT void grainchunk_testing_reset(void) {
  tool_result = NULL;
  rt_lookup = NULL;
  rt_set_callback = NULL;
  rt_get_callback = NULL;
  work_answer = ompt_set_never;
  atomic_store(&warned_order, 0);
  gc_registry_testing_reset();
  gc_forwarders_reset();
  gc_producers_testing_reset();
  if (verbose_out && verbose_out != stderr && verbose_out != stdout)
    fclose(verbose_out);
  verbose_out = NULL;
}
#endif
