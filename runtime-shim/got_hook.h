/*===- got_hook.h - Routing the OpenMP runtime's tool search via the shim -===*/
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#ifndef GRAINCHUNK_GOT_HOOK_H
#define GRAINCHUNK_GOT_HOOK_H

typedef struct {
  int patched; /* number of runtimes whose imports now lead to the shim */
  int late;    /* a runtime had already called its ompt_start_tool */
  const char *reason;  /* why nothing was patched */
  char loaded_by[256]; /* a loaded object other than the program that
                          lists libgrainchunk-rt as DT_NEEDED, or "" */
} gc_hook_status;

/* Points the GOT entries of every loaded object that imports
 * ompt_start_tool (the OpenMP runtime calls its own exported weak
 * ompt_start_tool through its PLT, so a tool can override it) at
 * start_first_tool, and that object's entries for dlsym at dlsym_wrapper. */
void gc_hook_runtime(void *start_first_tool, void *dlsym_wrapper)
    __attribute__((visibility("hidden")));
gc_hook_status gc_hook_status_get(void) __attribute__((visibility("hidden")));

#endif
