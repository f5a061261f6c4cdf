// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===- Run.cpp - all processes of one recording ---------------------------===//
//
// Finds the process directories of the recordings and analyses them, the
// baseline first (each baseline analysis is reduced to its Baseline before
// the next is read).
//
//===----------------------------------------------------------------------===//
#include "Run.h"

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <exception>
#include <thread>
#ifdef __GLIBC__
#include <malloc.h>
#endif

namespace gcg {

bool Run::complete() const {
  for (const auto &a : procs)
    if (!a->proc.complete)
      return false;
  return true;
}

size_t Run::grains() const {
  size_t n = 0;
  for (const auto &a : procs)
    n += a->nGrains();
  return n;
}

uint64_t Run::firstInstant() const {
  if (hasOrigin)
    return origin;
  bool any = false;
  uint64_t v = 0;
  for (const auto &a : procs)
    if (a->nGrains()) {
      uint64_t f = a->firstInstant();
      if (!any || f < v)
        v = f;
      any = true;
    }
  return v;
}

std::string Run::prefix(size_t i) const {
  if (!multi())
    return "";
  const ProcessDir &p = procs[i]->proc;
  return "p" + (p.pid >= 0 ? std::to_string(p.pid) : std::to_string(i)) + ".";
}

std::string Run::rankText(const ProcessDir &p) {
  return p.rank >= 0 ? std::to_string(p.rank) : "NA";
}

std::string Run::endsAt(const Analysis &an) {
  const ProcessDir &p = an.proc;
  int64_t c0 = p.meta.num("clock0", -1);
  char b[128];
  if (c0 >= 0 && an.lastRecord >= uint64_t(c0))
    std::snprintf(b, sizeof b, "%.3f ms after the recording started",
                  double(an.lastRecord - uint64_t(c0)) / an.clockNs() / 1e6);
  else
    std::snprintf(b, sizeof b, "an unknown time");
  return b;
}

static std::vector<ProcessDir> findAll(const std::vector<std::string> &raws) {
  std::vector<ProcessDir> out;
  for (const std::string &r : raws)
    for (ProcessDir &p : findProcesses(r))
      out.push_back(std::move(p));
  // An MPI job's processes in rank order (the problems, the summary and
  // the report's rows name them by rank); the others as they started.
  bool ranked = !out.empty();
  for (const ProcessDir &p : out)
    ranked = ranked && p.rank >= 0;
  if (ranked)
    std::stable_sort(out.begin(), out.end(),
                     [](const ProcessDir &a, const ProcessDir &b) {
                       return a.rank < b.rank;
                     });
  return out;
}

std::unique_ptr<Run> analyseRun(const std::vector<std::string> &raws,
                                const std::vector<std::string> &baselineRaws) {
  auto run = std::make_unique<Run>();
#ifdef __GLIBC__
  // Blocks of 16 MiB or more (the columns, grown by doubling) are mapped
  // apart and unmapped when freed: glibc's own threshold rises with the
  // blocks freed (up to 32 MiB), and the heap then keeps the columns' old
  // buffers where the later, larger ones do not fit.
  mallopt(M_MMAP_THRESHOLD, 16 << 20);
#endif
  std::vector<ProcessDir> dirs = findAll(raws);
  if (!baselineRaws.empty())
    for (ProcessDir &p : findAll(baselineRaws)) {
      Analysis an(p);
      run->baselines.push_back(std::make_unique<Baseline>(an));
    }
  // The processes in parallel, one per core at a time (each is read and
  // modelled alone; the baselines are only read); the first error in
  // process order is the one thrown.
  run->procs.resize(dirs.size());
  std::vector<std::exception_ptr> errors(dirs.size());
  std::atomic<size_t> next{0};
  auto work = [&] {
    for (size_t i; (i = next++) < dirs.size();) {
      const Baseline *b = nullptr;
      if (!run->baselines.empty())
        b = run->baselines[run->baselines.size() == dirs.size() ? i : 0].get();
      try {
        run->procs[i] = std::make_unique<Analysis>(dirs[i], b);
      } catch (...) {
        errors[i] = std::current_exception();
      }
    }
  };
  size_t cores = std::max(1u, std::thread::hardware_concurrency());
  size_t n = std::min(cores, dirs.size());
  std::vector<std::thread> helpers;
  for (size_t t = 1; t < n; t++)
    helpers.emplace_back(work);
  work();
  for (std::thread &t : helpers)
    t.join();
  for (std::exception_ptr &e : errors)
    if (e)
      std::rethrow_exception(e);
  releaseFreed();
  return run;
}

void releaseFreed() {
#ifdef __GLIBC__
  malloc_trim(0);
#endif
}

std::string chunkId(const Run &run, size_t p, size_t i) {
  return run.prefix(p) + "c" + std::to_string(run.procs[p]->chunks.thread[i]) +
         "." + std::to_string(i);
}

std::string taskId(const Run &run, size_t p, size_t k) {
  return run.prefix(p) + "t" + std::to_string(run.procs[p]->tasks.id[k]);
}

} // namespace gcg
