//===- Otf2Writer.h - Grains as an OTF2 trace archive -----------*- C++ -*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Writes a run's grains (loop chunks, tasks, loops, parallel regions) as an
// OTF2 archive, the trace format of the Score-P ecosystem, so that Vampir,
// otf2-print and other OTF2 readers open it. It knows nothing of the
// analysis: the caller defines locations and regions, then gives enter/leave
// events. Built on the OTF2 3.0 writer library (libopen-trace-format2-dev).
//
// The archive, for Dir "out" and Name "trace" (all three are OTF2's layout):
//   out/trace.otf2       the anchor file readers are given
//   out/trace.def        global definitions: clock, strings, system tree
//                        (one node per host), location groups (one per
//                        process), locations (one per thread), regions,
//                        attributes
//   out/trace/<L>.evt    the events of location L (L = 0, 1, ...)
//   out/trace/<L>.def    location L's (empty) local definitions
// Dir must exist and be writable; out/trace.otf2, out/trace.def and out/trace
// must not exist (the caller removes an earlier result first).
// Written in parts (Otf2Mode, an MPI job's ranks): EventsOnly writers give
// out/trace/<L>.evt with the job's ids, one DefinitionsOnly writer the rest;
// the caller moves the event files into its out/trace/.
//
// Rules for the caller (a broken rule is an error, see below):
// - Events of one location come in time order (equal times allowed); events
//   of different locations may interleave freely. Each location has its own
//   OTF2 event writer, whose events go to its .evt file while they are
//   written: memory does not grow with the trace, but each location with
//   events pending holds about 4.3 MiB (a 256 KiB chunk and OTF2's 4 MiB
//   file buffer) until endLocation() or close(). A caller with many threads
//   writes location by location and calls endLocation() after each.
//   close() writes the definitions through one 256 KiB chunk (its size is
//   recorded in the anchor file; definitions past it are flushed), reused
//   for each definitions file.
// - Enter/leave nest on each location: leave names the innermost open
//   region. Regions still open at close() are left at that location's last
//   event time (a recording cut short by a crash); openAtClose() counts them.
// - One thread drives a writer; OTF2's error handler is process-wide, so use
//   one writer at a time.
// Errors (a directory that cannot be written, a full disk, events out of
// order, a bad reference) are sticky: the first one is kept as one line
// naming the problem, later calls do nothing, and close() returns it. The
// files written so far stay; the caller removes them. After a failed write
// (a full disk) the OTF2 archive is left unclosed on purpose (OTF2 3.0.2
// would crash closing it; see close()): its memory (about 1 MiB per
// location) is lost then.
//
//===----------------------------------------------------------------------===//

#ifndef GRAINCHUNK_GRAPH_OTF2WRITER_H
#define GRAINCHUNK_GRAPH_OTF2WRITER_H

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace grainchunk {
namespace graph {

/// The recording's clock. Timestamps given to enter/leave are in its ticks.
/// The archive's clock properties: timer resolution round(TicksPerNs * 1e9)
/// ticks per second, global offset min(Start, first event), trace length up
/// to max(End, last event).
struct Otf2Clock {
  double TicksPerNs = 1.0; ///< ticks per nanosecond (> 0)
  uint64_t Start = 0;      ///< the run's first instant (meta.txt clock0)
  uint64_t End = 0;        ///< its last (clock1, or the last record's time)
  /// Wall-clock time of Start in ns since the Unix epoch, if known.
  uint64_t RealtimeNs = UINT64_MAX;
};

/// What a region is; sets its OTF2 region role (paradigm: OpenMP).
enum class RegionKind {
  Loop,      ///< a worksharing loop (OTF2_REGION_ROLE_LOOP)
  LoopChunk, ///< a chunk of a loop's iterations (OTF2_REGION_ROLE_CODE)
  Task,      ///< an explicit task (OTF2_REGION_ROLE_TASK)
  Parallel,  ///< a parallel region (OTF2_REGION_ROLE_PARALLEL)
};

/// Optional OTF2 attributes of an enter event; Present says which are set.
struct GrainAttributes {
  enum : uint8_t {
    HasIterations = 1,     ///< first_iteration, last_iteration (int64)
    HasLoopInstance = 2,   ///< loop_instance (uint64)
    HasCreationCycles = 4, ///< creation_cycles (uint64, clock ticks)
    HasGrainId = 8,        ///< grain_id (uint64)
  };
  uint8_t Present = 0;
  int64_t FirstIteration = 0;
  int64_t LastIteration = 0;
  uint64_t LoopInstance = 0;
  uint64_t CreationCycles = 0;
  uint64_t GrainId = 0;
};

/// What an Otf2Writer writes of its archive. An MPI job analysed where it
/// ran writes its archive in parts: each rank its locations' events
/// (EventsOnly, with the job's ids), rank 0 the job's definitions
/// (DefinitionsOnly) and then moves the ranks' event files into its
/// archive's directory. The files are then those of one Whole writer given
/// the same definitions and events.
enum class Otf2Mode {
  Whole,           ///< definitions and events (the default)
  EventsOnly,      ///< <Name>/<L>.evt (and OTF2's anchor file), no
                   ///< definitions: see setGlobalIds()
  DefinitionsOnly, ///< <Name>.otf2, <Name>.def and <Name>/<L>.def, no
                   ///< events: see setLocationEvents() and widenTime()
};

class Otf2Writer {
public:
  /// Opens the archive <Dir>/<Name>.otf2 (see the file comment). An error
  /// (Dir missing or unwritable, archive already there, bad clock) is kept:
  /// ok() is false and close() returns it.
  Otf2Writer(const std::string &Dir, const std::string &Name,
             const Otf2Clock &Clock, Otf2Mode Mode = Otf2Mode::Whole);
  /// Closes the archive if close() was not called (its error is dropped).
  ~Otf2Writer();
  Otf2Writer(const Otf2Writer &) = delete;
  Otf2Writer &operator=(const Otf2Writer &) = delete;

  /// Thread Thread of process Pid (Rank: its MPI rank, -1 for none) on
  /// host Host: one OTF2 location (a CPU thread) in the process's location
  /// group ("process <pid>" or "rank <r> (pid <pid>)") under the host's
  /// system tree node. Returns the location's id (0, 1, ... in order of
  /// definition; the same id again for the same Pid and Thread). A process
  /// keeps the rank and host it was first given; a different one is an error.
  uint32_t addLocation(uint64_t Pid, int Rank, const std::string &Host,
                       uint32_t Thread);
  /// A region (0, 1, ...): Name as shown, its source File and Line (empty
  /// and 0 if unknown).
  uint32_t addRegion(const std::string &Name, const std::string &File,
                     uint32_t Line, RegionKind Kind);

  /// Location Loc enters Region at time T (clock ticks), with attributes A.
  void enter(uint32_t Loc, uint64_t T, uint32_t Region,
             const GrainAttributes *A = nullptr);
  /// Location Loc leaves Region (its innermost open region) at time T.
  void leave(uint32_t Loc, uint64_t T, uint32_t Region);
  /// No more events for Loc: writes its buffer out and frees it (optional;
  /// for a caller that goes location by location over many threads).
  void endLocation(uint32_t Loc);

  /// EventsOnly: the events of location L go to OTF2 location
  /// LocationBase + L, and those of region R name region RegionIds[R] (the
  /// job's ids of this writer's locations and regions). Before any event.
  void setGlobalIds(uint32_t LocationBase, std::vector<uint32_t> RegionIds);
  /// DefinitionsOnly: location Loc has N events (written by another writer).
  void setLocationEvents(uint32_t Loc, uint64_t N);
  /// DefinitionsOnly: the events (of other writers) span Min..Max.
  void widenTime(uint64_t Min, uint64_t Max);
  /// Location Loc's events so far; the first and last event time of all
  /// locations (UINT64_MAX and 0 before any event).
  uint64_t locationEvents(uint32_t Loc) const;
  uint64_t minTime() const;
  uint64_t maxTime() const;

  /// Writes the definitions and closes the archive. Returns true, or false
  /// with the first error in *Err (if Err is not null). Call once.
  bool close(std::string *Err = nullptr);

  bool ok() const;
  const std::string &error() const;
  /// Regions left open by the caller and closed by close() so far.
  uint64_t openAtClose() const;
  /// Events written so far (enters and leaves, the ones close() adds too).
  uint64_t events() const;

  struct Impl;

private:
  std::unique_ptr<Impl> P;
};

} // namespace graph
} // namespace grainchunk

#endif
