/*===- got_hook.c - Routing the OpenMP runtime's tool search via the shim -===*
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
 *
 * libomp looks for a tool by calling ompt_start_tool (its own exported weak
 * definition, so a definition in the executable or an earlier library wins)
 * through its PLT, then dlopen + dlsym(handle, "ompt_start_tool") for each
 * OMP_TOOL_LIBRARIES entry and Archer. The shim must see which tool accepts
 * without changing any of that, and a tool defined in the executable comes
 * before any library in symbol lookup. So instead of defining
 * ompt_start_tool, the shim rewrites the runtime's own GOT entries for
 * ompt_start_tool and dlsym (found through the runtime's dynamic relocations,
 * by symbol name): only the runtime's calls change, and they reach the same
 * functions through the shim.
 *
 * This must happen before the runtime initializes (its first OpenMP call),
 * which is why it runs from the shim's constructor; gc_hook_status_get tells
 * whether it was too late.
 *===----------------------------------------------------------------------===*/
#define _GNU_SOURCE
#include "got_hook.h"

#include <elf.h>
#include <link.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#if defined(__x86_64__)
#define GC_R_JUMP_SLOT R_X86_64_JUMP_SLOT
#define GC_R_GLOB_DAT R_X86_64_GLOB_DAT
#elif defined(__aarch64__)
#define GC_R_JUMP_SLOT R_AARCH64_JUMP_SLOT
#define GC_R_GLOB_DAT R_AARCH64_GLOB_DAT
#endif

static gc_hook_status status = {0, 0, "not attempted", ""};

gc_hook_status gc_hook_status_get(void) { return status; }

typedef struct {
  void *start_first_tool, *dlsym_wrapper;
  int bind_now; /* LD_BIND_NOW: a resolved slot says nothing about timing */
} hook_args;

/* The dynamic section's d_ptr values: relocated in place by glibc for most
 * objects, not for all (vDSO); accept both. */
static uintptr_t dyn_ptr(uintptr_t base, uintptr_t p) {
  return p < base ? p + base : p;
}

static int in_relro(const struct dl_phdr_info *info, uintptr_t addr) {
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
    if (ph->p_type == PT_GNU_RELRO && addr >= info->dlpi_addr + ph->p_vaddr &&
        addr < info->dlpi_addr + ph->p_vaddr + ph->p_memsz)
      return 1;
  }
  return 0;
}

static void write_slot(const struct dl_phdr_info *info, void **slot,
                       void *value) {
  int ro = in_relro(info, (uintptr_t)slot);
  uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
  void *start = (void *)((uintptr_t)slot & ~(page - 1));
  if (ro && mprotect(start, page, PROT_READ | PROT_WRITE))
    return;
  __atomic_store_n(slot, value, __ATOMIC_RELEASE);
  if (ro)
    mprotect(start, page, PROT_READ);
}

static int visit(struct dl_phdr_info *info, size_t size, void *data) {
  (void)size;
  hook_args *args = data;
  const ElfW(Dyn) *dyn = NULL;
  for (int i = 0; i < info->dlpi_phnum; ++i)
    if (info->dlpi_phdr[i].p_type == PT_DYNAMIC)
      dyn = (const ElfW(Dyn) *)(info->dlpi_addr + info->dlpi_phdr[i].p_vaddr);
  if (!dyn)
    return 0;
  uintptr_t base = info->dlpi_addr;
  const ElfW(Sym) *symtab = NULL;
  const char *strtab = NULL;
  const ElfW(Rela) *rela = NULL, *jmprel = NULL;
  size_t relasz = 0, pltrelsz = 0;
  int bind_now = args->bind_now;
  const char *needed_self = NULL;
  for (const ElfW(Dyn) *d = dyn; d->d_tag != DT_NULL; ++d) {
    switch (d->d_tag) {
    case DT_SYMTAB:
      symtab = (const ElfW(Sym) *)dyn_ptr(base, d->d_un.d_ptr);
      break;
    case DT_STRTAB:
      strtab = (const char *)dyn_ptr(base, d->d_un.d_ptr);
      break;
    case DT_RELA:
      rela = (const ElfW(Rela) *)dyn_ptr(base, d->d_un.d_ptr);
      break;
    case DT_RELASZ:
      relasz = d->d_un.d_val;
      break;
    case DT_JMPREL:
      jmprel = (const ElfW(Rela) *)dyn_ptr(base, d->d_un.d_ptr);
      break;
    case DT_PLTRELSZ:
      pltrelsz = d->d_un.d_val;
      break;
    case DT_FLAGS:
      bind_now |= !!(d->d_un.d_val & DF_BIND_NOW);
      break;
    case DT_FLAGS_1:
      bind_now |= !!(d->d_un.d_val & DF_1_NOW);
      break;
    }
  }
  if (!symtab || !strtab)
    return 0;
  /* Who brought the shim in (for the warning when it came too late). */
  for (const ElfW(Dyn) *d = dyn; d->d_tag != DT_NULL; ++d)
    if (d->d_tag == DT_NEEDED &&
        strstr(strtab + d->d_un.d_val, "libgrainchunk-rt"))
      needed_self = info->dlpi_name;
  if (needed_self && *needed_self && !status.loaded_by[0])
    strncpy(status.loaded_by, needed_self, sizeof status.loaded_by - 1);

#ifdef GC_R_JUMP_SLOT
  /* Does this object call its own ompt_start_tool through its GOT (that
   * is: is it the runtime)? */
  void **start_slots[4];
  int n_start = 0;
  void **dlsym_slots[4];
  int n_dlsym = 0;
  const struct {
    const ElfW(Rela) * r;
    size_t n;
  } tables[2] = {{rela, relasz / sizeof(ElfW(Rela))},
                 {jmprel, pltrelsz / sizeof(ElfW(Rela))}};
  for (int t = 0; t < 2; ++t) {
    for (size_t i = 0; tables[t].r && i < tables[t].n; ++i) {
      const ElfW(Rela) *r = &tables[t].r[i];
      unsigned type = ELF64_R_TYPE(r->r_info);
      if (type != GC_R_JUMP_SLOT && type != GC_R_GLOB_DAT)
        continue;
      const ElfW(Sym) *sym = &symtab[ELF64_R_SYM(r->r_info)];
      const char *name = strtab + sym->st_name;
      void **slot = (void **)(base + r->r_offset);
      /* The runtime calls its own (defined, interposable) ompt_start_tool;
       * a program that merely calls someone else's is left alone. */
      if (!strcmp(name, "ompt_start_tool") && sym->st_shndx != SHN_UNDEF &&
          n_start < 4)
        start_slots[n_start++] = slot;
      else if (!strcmp(name, "dlsym") && n_dlsym < 4)
        dlsym_slots[n_dlsym++] = slot;
    }
  }
  if (!n_start)
    return 0;
  /* A lazily bound slot still points into the runtime's PLT until the first
   * call; once resolved it holds the definition's address. */
  void *first = dlsym(RTLD_DEFAULT, "ompt_start_tool");
  for (int i = 0; i < n_start; ++i)
    if (!bind_now && *start_slots[i] == first)
      status.late = 1;
  for (int i = 0; i < n_start; ++i)
    write_slot(info, start_slots[i], args->start_first_tool);
  for (int i = 0; i < n_dlsym; ++i)
    write_slot(info, dlsym_slots[i], args->dlsym_wrapper);
  status.patched++;
#endif
  return 0;
}

void gc_hook_runtime(void *start_first_tool, void *dlsym_wrapper) {
#ifdef GC_R_JUMP_SLOT
  const char *bn = getenv("LD_BIND_NOW");
  hook_args args = {start_first_tool, dlsym_wrapper, bn && *bn};
  dl_iterate_phdr(visit, &args);
  if (!status.patched)
    status.reason = "no loaded object imports ompt_start_tool";
#else
  (void)start_first_tool;
  (void)dlsym_wrapper;
  status.reason = "this architecture is not supported";
#endif
}
