//===- Otf2Writer.cpp - Grains as an OTF2 trace archive -------------------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The OTF2 writer of Otf2Writer.h over the OTF2 3.0 library. Events go
// straight to each location's OTF2 event writer; definitions (strings,
// system tree, location groups, locations with their event counts, regions,
// attributes, the clock) are collected in memory and written by close()
// into the global definition file, as OTF2 wants them after the events.
// An archive written in parts (Otf2Mode): an EventsOnly writer numbers its
// locations and regions as the job does (setGlobalIds) and writes no
// definitions; a DefinitionsOnly writer opens no event file and is told
// each location's event count and the events' time span.
//
//===----------------------------------------------------------------------===//

#include "Otf2Writer.h"

#include <otf2/otf2.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <map>
#include <mutex>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <unordered_map>
#include <utility>
#include <vector>

using namespace grainchunk::graph;

namespace {

// OTF2 reports errors through one process-wide handler, which by default
// prints them. Ours keeps the first message of the current call chain for
// the writer that is running (Capture) and prints nothing.
thread_local std::string *Capture = nullptr;

OTF2_ErrorCode onOtf2Error(void *, const char *, uint64_t, const char *,
                           OTF2_ErrorCode Code, const char *Fmt, va_list Va) {
  if (Capture && Capture->empty()) {
    char Buf[512];
    vsnprintf(Buf, sizeof Buf, Fmt, Va);
    *Capture = std::string(OTF2_Error_GetDescription(Code)) +
               (Buf[0] ? std::string(": ") + Buf : std::string());
  }
  return Code;
}

OTF2_FlushType preFlush(void *, OTF2_FileType, OTF2_LocationRef, void *, bool) {
  return OTF2_FLUSH;
}
// No post-flush callback: OTF2 then writes no BufferFlush records, whose
// times would not be on the recording's clock.
const OTF2_FlushCallbacks FlushCallbacks = {preFlush, nullptr};

constexpr uint64_t EventChunk = OTF2_CHUNK_SIZE_MIN; // 256 KiB
// Definitions in chunks of the same size: OTF2's default (4 MiB) would be
// the archive's largest transient (see below), and definitions past one
// chunk are flushed as events are.
constexpr uint64_t DefChunk = OTF2_CHUNK_SIZE_MIN;

// Without memory callbacks OTF2 keeps every chunk of every writer in memory
// until the writer closes (the whole trace, ~20 bytes per event). Ours give
// each buffer (a location's events, or definitions) MaxChunks chunks; when
// they are used, OTF2 asks preFlush, hands the chunks to its file layer and
// frees them through freeChunks. (The file layer adds its own 4 MiB write
// buffer per open file: about 4.3 MiB per location with events pending.)
// OTF2 fills the unused rest of a buffer's last chunk when it writes it
// out, so every chunk is touched whole: a definitions chunk is DefChunk
// bytes of memory however few the definitions (with OTF2's default, 4 MiB,
// it was (d)'s peak: 3.8 MB over the resident before it). Chunks are
// mapped apart from the heap (given back to the system when freed, not
// held by the C library beside the outputs written after this one), and
// the last one freed is kept for the next buffer of its size: the buffers
// written one after another (each location's events, each location's and
// the global definitions) reuse one mapping whose pages are already there
// instead of faulting in new ones.
constexpr size_t MaxChunks = 1;
struct Chunks {
  void *Chunk[MaxChunks];
  size_t Size = 0; // OTF2's chunk size of the buffer's kind
  size_t N = 0;
};

/// The chunks' memory: mappings of their size; Spare, of SpareSize bytes,
/// the last one freed (or null).
struct ChunkPool {
  void *Spare = nullptr;
  size_t SpareSize = 0;
  void release() {
    if (Spare)
      munmap(Spare, SpareSize);
    Spare = nullptr;
  }
  ~ChunkPool() { release(); }
};

void *allocChunk(void *Data, OTF2_FileType, OTF2_LocationRef, void **PerBuffer,
                 uint64_t Size) {
  auto *Pool = static_cast<ChunkPool *>(Data);
  auto *C = static_cast<Chunks *>(*PerBuffer);
  if (!C)
    *PerBuffer = C = new Chunks;
  if (C->N == MaxChunks)
    return nullptr; // full: OTF2 flushes
  void *Mem = nullptr;
  if (Pool->Spare && Pool->SpareSize == Size) {
    Mem = Pool->Spare;
    Pool->Spare = nullptr;
  } else {
    Pool->release(); // of another size: not kept beside this one
    Mem = mmap(nullptr, Size, PROT_READ | PROT_WRITE,
               MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (Mem == MAP_FAILED)
      return nullptr;
  }
  C->Size = Size;
  C->Chunk[C->N++] = Mem;
  return Mem;
}

void freeChunks(void *Data, OTF2_FileType, OTF2_LocationRef, void **PerBuffer,
                bool Final) {
  auto *Pool = static_cast<ChunkPool *>(Data);
  auto *C = static_cast<Chunks *>(*PerBuffer);
  if (!C)
    return;
  for (size_t I = 0; I < C->N; ++I) {
    Pool->release();
    Pool->Spare = C->Chunk[I];
    Pool->SpareSize = C->Size;
  }
  C->N = 0;
  if (Final) {
    delete C;
    *PerBuffer = nullptr;
  }
}
const OTF2_MemoryCallbacks MemoryCallbacks = {allocChunk, freeChunks};

struct AttrDef {
  const char *Name;
  const char *Description;
  OTF2_Type Type;
};
// Attribute refs are the indexes here.
const AttrDef Attrs[] = {
    {"first_iteration", "first iteration of the chunk", OTF2_TYPE_INT64},
    {"last_iteration", "last iteration of the chunk", OTF2_TYPE_INT64},
    {"loop_instance", "instance of the loop the chunk belongs to",
     OTF2_TYPE_UINT64},
    {"creation_cycles", "clock ticks spent making the grain", OTF2_TYPE_UINT64},
    {"grain_id", "the grain's id in grains.csv", OTF2_TYPE_UINT64},
};
enum { AFirst, ALast, AInstance, ACreation, AGrain };

} // namespace

struct Otf2Writer::Impl {
  struct Host {
    uint32_t Name;
  };
  struct Process {
    uint64_t Pid;
    int Rank;
    uint32_t Host;
    uint32_t Name;
  };
  struct Location {
    uint32_t Process;
    uint32_t Name;
    OTF2_EvtWriter *W = nullptr;
    bool Ended = false;
    bool Any = false;
    uint64_t Last = 0;
    uint64_t Events = 0;
    std::vector<uint32_t> Open; // the open regions, innermost last
  };
  struct Region {
    uint32_t Name, File, Line;
    RegionKind Kind;
  };

  std::string Path; // <Dir>/<Name>.otf2, for messages
  Otf2Clock Clock;
  Otf2Mode Mode = Otf2Mode::Whole;
  uint32_t LocBase = 0;            // EventsOnly: the job's id of location 0
  std::vector<uint32_t> RegionIds; // EventsOnly: the job's id of each region
  OTF2_Archive *Archive = nullptr;
  ChunkPool Pool; // the archive's chunks (given to OTF2 as its data)
  OTF2_AttributeList *AttrList = nullptr;
  std::string Err;
  bool Closed = false;
  bool EvtFilesOpen = false;
  bool Broken = false; // an OTF2 call failed: see close()
  uint64_t MinT = UINT64_MAX, MaxT = 0;
  uint64_t OpenAtClose = 0, Events = 0;

  std::vector<std::string> Strings;
  std::unordered_map<std::string, uint32_t> StringIds;
  std::vector<Host> Hosts;
  std::unordered_map<std::string, uint32_t> HostIds;
  std::vector<Process> Processes;
  std::unordered_map<uint64_t, uint32_t> ProcessIds;
  std::vector<Location> Locations;
  std::map<std::pair<uint64_t, uint32_t>, uint32_t> LocationIds;
  std::vector<Region> Regions;

  // Runs F with OTF2's messages captured into OtfMsg.
  std::string OtfMsg;
  template <class F> OTF2_ErrorCode call(F &&Fn) {
    std::string *Saved = Capture;
    OtfMsg.clear();
    Capture = &OtfMsg;
    OTF2_ErrorCode Code = Fn();
    Capture = Saved;
    return Code;
  }

  bool fail(const std::string &Msg) {
    if (Err.empty())
      Err = "OTF2 trace " + Path + ": " + Msg;
    return false;
  }
  // Records a failed OTF2 call, with OTF2's own message when it gave one.
  bool failOtf2(const char *What, OTF2_ErrorCode Code) {
    Broken = true;
    std::string Why = OtfMsg.empty() ? OTF2_Error_GetDescription(Code) : OtfMsg;
    return fail(std::string(What) + " failed: " + Why);
  }

  uint32_t str(const std::string &S) {
    auto [It, New] = StringIds.try_emplace(S, uint32_t(Strings.size()));
    if (New)
      Strings.push_back(S);
    return It->second;
  }

  // The region id events name: the job's, for an EventsOnly writer.
  uint32_t regionRef(uint32_t Region) const {
    return Mode == Otf2Mode::EventsOnly ? RegionIds[Region] : Region;
  }
  bool checkLoc(uint32_t Loc) {
    if (Mode == Otf2Mode::DefinitionsOnly)
      return fail("an event given to a writer of definitions only");
    if (Loc >= Locations.size())
      return fail("event for location " + std::to_string(Loc) +
                  ", which was not defined");
    if (Locations[Loc].Ended)
      return fail("event for location " + std::to_string(Loc) +
                  " after endLocation()");
    return true;
  }
  bool checkTime(Location &L, uint32_t Loc, uint64_t T) {
    if (L.Any && T < L.Last)
      return fail("events out of time order on location " +
                  std::to_string(Loc) + ": " + std::to_string(T) + " after " +
                  std::to_string(L.Last));
    return true;
  }
  OTF2_EvtWriter *writer(Location &L, uint32_t Loc) {
    if (!L.W) {
      L.W = OTF2_Archive_GetEvtWriter(Archive, LocBase + Loc);
      if (!L.W)
        failOtf2("opening the event writer", OTF2_ERROR_INVALID);
    }
    return L.W;
  }
  void stamp(Location &L, uint64_t T) {
    L.Any = true;
    L.Last = T;
    ++L.Events;
    ++Events;
    if (T < MinT)
      MinT = T;
    if (T > MaxT)
      MaxT = T;
  }
  // Leaves what is still open and closes the event writer of L.
  bool finish(Location &L, uint32_t Loc);
  bool writeDefinitions();
};

bool Otf2Writer::Impl::finish(Location &L, uint32_t Loc) {
  if (L.Ended)
    return true;
  L.Ended = true;
  while (Err.empty() && !L.Open.empty()) {
    OTF2_ErrorCode Code = call([&] {
      return OTF2_EvtWriter_Leave(L.W, nullptr, L.Last,
                                  regionRef(L.Open.back()));
    });
    if (Code != OTF2_SUCCESS)
      return failOtf2("writing a leave event", Code);
    L.Open.pop_back();
    stamp(L, L.Last);
    ++OpenAtClose;
  }
  // A location without events still gets its (empty) event file, which
  // readers open.
  if (!writer(L, Loc))
    return false;
  {
    OTF2_ErrorCode Code =
        call([&] { return OTF2_Archive_CloseEvtWriter(Archive, L.W); });
    L.W = nullptr;
    if (Code != OTF2_SUCCESS)
      return failOtf2("writing the events", Code);
  }
  return Err.empty();
}

Otf2Writer::Otf2Writer(const std::string &Dir, const std::string &Name,
                       const Otf2Clock &Clock, Otf2Mode Mode)
    : P(new Impl) {
  P->Mode = Mode;
  static std::once_flag Once;
  std::call_once(Once,
                 [] { OTF2_Error_RegisterCallback(onOtf2Error, nullptr); });
  P->Path = Dir + "/" + Name + ".otf2";
  P->Clock = Clock;
  if (!(Clock.TicksPerNs > 0) || !std::isfinite(Clock.TicksPerNs) ||
      std::llround(Clock.TicksPerNs * 1e9) < 1) {
    P->fail("invalid clock: " + std::to_string(Clock.TicksPerNs) +
            " ticks per ns");
    return;
  }
  if (Name.empty() || Name.find('/') != std::string::npos) {
    P->fail("invalid archive name '" + Name + "'");
    return;
  }
  struct stat St;
  if (stat(Dir.c_str(), &St) != 0) {
    P->fail("cannot use directory '" + Dir + "': " + strerror(errno));
    return;
  }
  if (!S_ISDIR(St.st_mode)) {
    P->fail("'" + Dir + "' is not a directory");
    return;
  }
  if (access(Dir.c_str(), W_OK | X_OK) != 0) {
    P->fail("cannot write into directory '" + Dir + "': " + strerror(errno));
    return;
  }
  for (const std::string &F : {Dir + "/" + Name + ".otf2",
                               Dir + "/" + Name + ".def", Dir + "/" + Name})
    if (lstat(F.c_str(), &St) == 0) {
      P->fail("'" + F + "' already exists (remove the earlier trace first)");
      return;
    }
  // A directory where access() says yes but nothing can be created (root in
  // /sys): OTF2_Archive_Open would fail and leak what it allocated, so try
  // the archive's directory first.
  std::string Sub = Dir + "/" + Name;
  if (mkdir(Sub.c_str(), 0777) != 0) {
    P->fail("cannot create '" + Sub + "': " + strerror(errno));
    return;
  }
  rmdir(Sub.c_str());

  P->call([&] {
    P->Archive = OTF2_Archive_Open(Dir.c_str(), Name.c_str(),
                                   OTF2_FILEMODE_WRITE, EventChunk, DefChunk,
                                   OTF2_SUBSTRATE_POSIX, OTF2_COMPRESSION_NONE);
    return P->Archive ? OTF2_SUCCESS : OTF2_ERROR_INVALID;
  });
  if (!P->Archive) {
    P->failOtf2("opening the archive", OTF2_ERROR_INVALID);
    return;
  }
  OTF2_ErrorCode Code = P->call([&] {
    OTF2_ErrorCode C =
        OTF2_Archive_SetFlushCallbacks(P->Archive, &FlushCallbacks, nullptr);
    if (C == OTF2_SUCCESS)
      C = OTF2_Archive_SetMemoryCallbacks(P->Archive, &MemoryCallbacks,
                                          &P->Pool);
    if (C == OTF2_SUCCESS)
      C = OTF2_Archive_SetSerialCollectiveCallbacks(P->Archive);
    if (C == OTF2_SUCCESS)
      C = OTF2_Archive_SetCreator(P->Archive, "grainchunk-graph");
    if (C == OTF2_SUCCESS)
      C = OTF2_Archive_SetDescription(
          P->Archive, "grains of an OpenMP run: loop chunks and tasks");
    if (C == OTF2_SUCCESS && Mode != Otf2Mode::DefinitionsOnly)
      C = OTF2_Archive_OpenEvtFiles(P->Archive);
    return C;
  });
  if (Code != OTF2_SUCCESS) {
    P->failOtf2("opening the archive", Code);
    return;
  }
  P->EvtFilesOpen = Mode != Otf2Mode::DefinitionsOnly;
  P->AttrList = OTF2_AttributeList_New();
  if (!P->AttrList)
    P->fail("out of memory");
}

Otf2Writer::~Otf2Writer() {
  if (!P->Closed)
    close(nullptr);
}

uint32_t Otf2Writer::addLocation(uint64_t Pid, int Rank,
                                 const std::string &Host, uint32_t Thread) {
  Impl &I = *P;
  auto Found = I.LocationIds.find({Pid, Thread});
  if (Found != I.LocationIds.end())
    return Found->second;
  if (Rank < -1) {
    I.fail("invalid rank " + std::to_string(Rank) + " for process " +
           std::to_string(Pid));
    Rank = -1;
  }
  uint32_t Proc;
  auto PIt = I.ProcessIds.find(Pid);
  if (PIt == I.ProcessIds.end()) {
    auto [HIt, NewHost] = I.HostIds.try_emplace(Host, uint32_t(I.Hosts.size()));
    if (NewHost)
      I.Hosts.push_back({I.str(Host.empty() ? "unknown host" : Host)});
    // Pid's high half numbers the images of an exec'ing process.
    std::string Shown =
        std::to_string(Pid & 0xffffffffu) +
        (Pid >> 32 ? "." + std::to_string((Pid >> 32) + 1) : "");
    std::string PName =
        Rank < 0 ? "process " + Shown
                 : "rank " + std::to_string(Rank) + " (pid " + Shown + ")";
    Proc = uint32_t(I.Processes.size());
    I.Processes.push_back({Pid, Rank, HIt->second, I.str(PName)});
    I.ProcessIds.emplace(Pid, Proc);
  } else {
    Proc = PIt->second;
    const Impl::Process &Pr = I.Processes[Proc];
    auto HIt = I.HostIds.find(Host);
    if (Pr.Rank != Rank || HIt == I.HostIds.end() || HIt->second != Pr.Host)
      I.fail("process " + std::to_string(Pid) +
             " given again with another rank or host");
  }
  uint32_t Loc = uint32_t(I.Locations.size());
  I.Locations.emplace_back();
  I.Locations.back().Process = Proc;
  I.Locations.back().Name = I.str("thread " + std::to_string(Thread));
  I.LocationIds.emplace(std::make_pair(Pid, Thread), Loc);
  return Loc;
}

uint32_t Otf2Writer::addRegion(const std::string &Name, const std::string &File,
                               uint32_t Line, RegionKind Kind) {
  Impl &I = *P;
  I.Regions.push_back({I.str(Name), I.str(File), Line, Kind});
  return uint32_t(I.Regions.size() - 1);
}

void Otf2Writer::enter(uint32_t Loc, uint64_t T, uint32_t Region,
                       const GrainAttributes *A) {
  Impl &I = *P;
  if (!I.Err.empty() || I.Closed || !I.checkLoc(Loc))
    return;
  Impl::Location &L = I.Locations[Loc];
  if (!I.checkTime(L, Loc, T))
    return;
  if (Region >= I.Regions.size() ||
      (I.Mode == Otf2Mode::EventsOnly && Region >= I.RegionIds.size())) {
    I.fail("enter of region " + std::to_string(Region) +
           ", which was not defined");
    return;
  }
  OTF2_EvtWriter *W = I.writer(L, Loc);
  if (!W)
    return;
  OTF2_AttributeList *List = nullptr;
  if (A && A->Present) {
    List = I.AttrList;
    OTF2_AttributeList_RemoveAllAttributes(List);
    if (A->Present & GrainAttributes::HasIterations) {
      OTF2_AttributeList_AddInt64(List, AFirst, A->FirstIteration);
      OTF2_AttributeList_AddInt64(List, ALast, A->LastIteration);
    }
    if (A->Present & GrainAttributes::HasLoopInstance)
      OTF2_AttributeList_AddUint64(List, AInstance, A->LoopInstance);
    if (A->Present & GrainAttributes::HasCreationCycles)
      OTF2_AttributeList_AddUint64(List, ACreation, A->CreationCycles);
    if (A->Present & GrainAttributes::HasGrainId)
      OTF2_AttributeList_AddUint64(List, AGrain, A->GrainId);
  }
  OTF2_ErrorCode Code = I.call(
      [&] { return OTF2_EvtWriter_Enter(W, List, T, I.regionRef(Region)); });
  if (Code != OTF2_SUCCESS) {
    I.failOtf2("writing an enter event", Code);
    return;
  }
  L.Open.push_back(Region);
  I.stamp(L, T);
}

void Otf2Writer::leave(uint32_t Loc, uint64_t T, uint32_t Region) {
  Impl &I = *P;
  if (!I.Err.empty() || I.Closed || !I.checkLoc(Loc))
    return;
  Impl::Location &L = I.Locations[Loc];
  if (!I.checkTime(L, Loc, T))
    return;
  if (L.Open.empty() || L.Open.back() != Region) {
    I.fail("leave of region " + std::to_string(Region) + " on location " +
           std::to_string(Loc) + " at " + std::to_string(T) +
           (L.Open.empty() ? std::string(", where no region is open")
                           : ", where region " + std::to_string(L.Open.back()) +
                                 " is the innermost open one"));
    return;
  }
  OTF2_ErrorCode Code = I.call([&] {
    return OTF2_EvtWriter_Leave(L.W, nullptr, T, I.regionRef(Region));
  });
  if (Code != OTF2_SUCCESS) {
    I.failOtf2("writing a leave event", Code);
    return;
  }
  L.Open.pop_back();
  I.stamp(L, T);
}

void Otf2Writer::endLocation(uint32_t Loc) {
  Impl &I = *P;
  if (!I.Err.empty() || I.Closed || !I.checkLoc(Loc))
    return;
  I.finish(I.Locations[Loc], Loc);
}

void Otf2Writer::setGlobalIds(uint32_t LocationBase,
                              std::vector<uint32_t> RegionIds) {
  Impl &I = *P;
  if (I.Mode != Otf2Mode::EventsOnly)
    I.fail("the job's ids given to a writer that is not of events only");
  I.LocBase = LocationBase;
  I.RegionIds = std::move(RegionIds);
}

void Otf2Writer::setLocationEvents(uint32_t Loc, uint64_t N) {
  Impl &I = *P;
  if (I.Mode != Otf2Mode::DefinitionsOnly || Loc >= I.Locations.size()) {
    I.fail("event count of location " + std::to_string(Loc) +
           " given to a writer that writes its events or has no such "
           "location");
    return;
  }
  I.Events += N - I.Locations[Loc].Events;
  I.Locations[Loc].Events = N;
}

void Otf2Writer::widenTime(uint64_t Min, uint64_t Max) {
  P->MinT = std::min(P->MinT, Min);
  P->MaxT = std::max(P->MaxT, Max);
}

uint64_t Otf2Writer::locationEvents(uint32_t Loc) const {
  return Loc < P->Locations.size() ? P->Locations[Loc].Events : 0;
}
uint64_t Otf2Writer::minTime() const { return P->MinT; }
uint64_t Otf2Writer::maxTime() const { return P->MaxT; }

bool Otf2Writer::Impl::writeDefinitions() {
  OTF2_ErrorCode Code = call([&] {
    // Local definition files, one (empty) per location, as readers expect.
    OTF2_ErrorCode C = OTF2_Archive_OpenDefFiles(Archive);
    for (size_t Loc = 0; C == OTF2_SUCCESS && Loc < Locations.size(); ++Loc) {
      OTF2_DefWriter *D = OTF2_Archive_GetDefWriter(Archive, Loc);
      C = D ? OTF2_Archive_CloseDefWriter(Archive, D) : OTF2_ERROR_INVALID;
    }
    if (C == OTF2_SUCCESS)
      C = OTF2_Archive_CloseDefFiles(Archive);
    return C;
  });
  if (Code != OTF2_SUCCESS)
    return failOtf2("writing the local definitions", Code);

  // The trace spans the run and every event (an event outside the run's
  // clock range widens it rather than falling outside the trace).
  uint64_t Lo = std::min(Clock.Start, MinT);
  uint64_t Hi = std::max(Clock.End, MaxT);
  if (Hi < Lo)
    Hi = Lo;
  uint64_t Resolution = uint64_t(std::llround(Clock.TicksPerNs * 1e9));
  uint64_t Realtime = Clock.RealtimeNs == UINT64_MAX ? OTF2_UNDEFINED_TIMESTAMP
                                                     : Clock.RealtimeNs;

  // Every attribute is defined (OTF2 wants their refs dense), used or not.
  std::vector<std::pair<uint32_t, uint32_t>> AttrStrings;
  for (const AttrDef &A : Attrs)
    AttrStrings.push_back({str(A.Name), str(A.Description)});
  uint32_t MachineName = str("grainchunk run");
  uint32_t MachineClass = str("machine");
  uint32_t NodeClass = str("node");

  Code = call([&] {
    OTF2_GlobalDefWriter *G = OTF2_Archive_GetGlobalDefWriter(Archive);
    if (!G)
      return OTF2_ERROR_INVALID;
    OTF2_ErrorCode C = OTF2_GlobalDefWriter_WriteClockProperties(
        G, Resolution, Lo, Hi - Lo, Realtime);
    for (size_t S = 0; C == OTF2_SUCCESS && S < Strings.size(); ++S)
      C = OTF2_GlobalDefWriter_WriteString(G, S, Strings[S].c_str());
    for (size_t A = 0; C == OTF2_SUCCESS && A < AttrStrings.size(); ++A)
      C = OTF2_GlobalDefWriter_WriteAttribute(
          G, A, AttrStrings[A].first, AttrStrings[A].second, Attrs[A].Type);
    // System tree: node 0 the run, node 1 + h host h.
    if (C == OTF2_SUCCESS)
      C = OTF2_GlobalDefWriter_WriteSystemTreeNode(
          G, 0, MachineName, MachineClass, OTF2_UNDEFINED_SYSTEM_TREE_NODE);
    for (size_t H = 0; C == OTF2_SUCCESS && H < Hosts.size(); ++H)
      C = OTF2_GlobalDefWriter_WriteSystemTreeNode(G, 1 + H, Hosts[H].Name,
                                                   NodeClass, 0);
    for (size_t Pr = 0; C == OTF2_SUCCESS && Pr < Processes.size(); ++Pr)
      C = OTF2_GlobalDefWriter_WriteLocationGroup(
          G, Pr, Processes[Pr].Name, OTF2_LOCATION_GROUP_TYPE_PROCESS,
          1 + Processes[Pr].Host, OTF2_UNDEFINED_LOCATION_GROUP);
    for (size_t Loc = 0; C == OTF2_SUCCESS && Loc < Locations.size(); ++Loc)
      C = OTF2_GlobalDefWriter_WriteLocation(
          G, Loc, Locations[Loc].Name, OTF2_LOCATION_TYPE_CPU_THREAD,
          Locations[Loc].Events, Locations[Loc].Process);
    for (size_t R = 0; C == OTF2_SUCCESS && R < Regions.size(); ++R) {
      OTF2_RegionRole Role = OTF2_REGION_ROLE_CODE;
      switch (Regions[R].Kind) {
      case RegionKind::Loop:
        Role = OTF2_REGION_ROLE_LOOP;
        break;
      case RegionKind::LoopChunk:
        Role = OTF2_REGION_ROLE_CODE;
        break;
      case RegionKind::Task:
        Role = OTF2_REGION_ROLE_TASK;
        break;
      case RegionKind::Parallel:
        Role = OTF2_REGION_ROLE_PARALLEL;
        break;
      }
      C = OTF2_GlobalDefWriter_WriteRegion(
          G, R, Regions[R].Name, Regions[R].Name, Regions[R].Name, Role,
          OTF2_PARADIGM_OPENMP, OTF2_REGION_FLAG_NONE, Regions[R].File,
          Regions[R].Line, Regions[R].Line);
    }
    if (C == OTF2_SUCCESS)
      C = OTF2_Archive_CloseGlobalDefWriter(Archive, G);
    return C;
  });
  if (Code != OTF2_SUCCESS)
    return failOtf2("writing the global definitions", Code);
  return true;
}

bool Otf2Writer::close(std::string *ErrOut) {
  Impl &I = *P;
  if (I.Closed) {
    if (I.Err.empty())
      I.fail("close() called twice");
  } else {
    I.Closed = true;
    if (I.Broken) {
      // OTF2 3.0.2 frees a file's write buffer when a write fails (a full
      // disk) and writes from it again when the file is closed (valgrind:
      // use after free, then glibc aborts on a double free). After any
      // failed OTF2 call its archive is therefore left unclosed, on purpose:
      // its memory and open files are lost until the process exits, instead
      // of a crash.
      I.Archive = nullptr;
    }
    if (I.Archive) {
      for (size_t Loc = 0; Loc < I.Locations.size(); ++Loc)
        if (I.Err.empty() && I.Mode != Otf2Mode::DefinitionsOnly)
          I.finish(I.Locations[Loc], Loc);
      if (I.EvtFilesOpen && !I.Broken) {
        OTF2_ErrorCode Code =
            I.call([&] { return OTF2_Archive_CloseEvtFiles(I.Archive); });
        if (Code != OTF2_SUCCESS)
          I.failOtf2("closing the event files", Code);
      }
      if (I.Err.empty() && I.Mode != Otf2Mode::EventsOnly)
        I.writeDefinitions();
      // Closing frees every writer still open (after an error of the
      // caller's too), unless OTF2 failed on the way (as above).
      if (!I.Broken) {
        OTF2_ErrorCode Code =
            I.call([&] { return OTF2_Archive_Close(I.Archive); });
        if (Code != OTF2_SUCCESS)
          I.failOtf2("closing the archive", Code);
      }
      I.Archive = nullptr;
    }
    I.Pool.release(); // no buffer is open any more
    if (I.AttrList)
      OTF2_AttributeList_Delete(I.AttrList);
    I.AttrList = nullptr;
  }
  if (ErrOut)
    *ErrOut = I.Err;
  return I.Err.empty();
}

bool Otf2Writer::ok() const { return P->Err.empty(); }
const std::string &Otf2Writer::error() const { return P->Err; }
uint64_t Otf2Writer::openAtClose() const { return P->OpenAtClose; }
uint64_t Otf2Writer::events() const { return P->Events; }
