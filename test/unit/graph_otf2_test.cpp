//===- graph_otf2_test.cpp - Tests of the OTF2 trace writer ---------------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Writes small known traces with tools/graph/Otf2Writer and reads them back
// with otf2-print (otf2-tools): definitions (clock, system tree, processes,
// ranks, threads, regions, attributes), every event with its location, time
// and region, and the archive's files. Then the errors: directories that
// cannot be written, an existing archive, events out of order or badly
// nested, a write that fails half way (file size limit, like a full disk).
// OTF2_BYTES_PER_GRAIN measures the archive's size per grain; with
// GRAINCHUNK_OTF2_GRAINS=N in the environment it writes N grains instead of
// 2*10^5 (docs/grain-graphs.md quotes N = 10^7).
//
//===----------------------------------------------------------------------===//

#include "Otf2Writer.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

using namespace grainchunk::graph;
namespace fs = std::filesystem;

namespace {

struct TempDir {
  std::string Path;
  TempDir() {
    std::string Tmpl = fs::temp_directory_path() / "graph_otf2_XXXXXX";
    std::vector<char> Buf(Tmpl.begin(), Tmpl.end());
    Buf.push_back(0);
    if (!mkdtemp(Buf.data()))
      ADD_FAILURE() << "mkdtemp failed";
    Path = Buf.data();
  }
  ~TempDir() {
    std::error_code EC;
    fs::permissions(Path, fs::perms::owner_all, fs::perm_options::add, EC);
    fs::remove_all(Path, EC);
  }
};

// Runs otf2-print with Args on Dir/trace.otf2; returns its output (stdout
// and stderr) and sets Status to its exit status.
std::string otf2Print(const std::string &Dir, const std::string &Args,
                      int &Status) {
  std::string Cmd =
      std::string(OTF2_PRINT) + " " + Args + " '" + Dir + "/trace.otf2' 2>&1";
  FILE *F = popen(Cmd.c_str(), "r");
  std::string Out;
  if (!F) {
    Status = -1;
    return Out;
  }
  char Buf[4096];
  size_t N;
  while ((N = fread(Buf, 1, sizeof Buf, F)) > 0)
    Out.append(Buf, N);
  int W = pclose(F);
  Status = WIFEXITED(W) ? WEXITSTATUS(W) : -1;
  return Out;
}

struct Ev {
  bool Enter;
  uint64_t T;
  std::string Region;
  bool operator==(const Ev &O) const {
    return Enter == O.Enter && T == O.T && Region == O.Region;
  }
};
std::ostream &operator<<(std::ostream &OS, const Ev &E) {
  return OS << (E.Enter ? "ENTER " : "LEAVE ") << E.T << " " << E.Region;
}

// The events otf2-print shows, per location, and the attribute line that
// follows each enter (keyed by location and time).
struct Printed {
  std::map<uint32_t, std::vector<Ev>> Events;
  std::map<std::pair<uint32_t, uint64_t>, std::string> Attrs;
};
Printed parseEvents(const std::string &Out) {
  Printed P;
  static const std::regex EvRe(
      R"x(^(ENTER|LEAVE) +(\d+) +(\d+) +Region: "([^"]*)" <\d+>$)x");
  std::istringstream In(Out);
  std::string Line;
  std::pair<uint32_t, uint64_t> LastEnter{UINT32_MAX, 0};
  while (std::getline(In, Line)) {
    std::smatch M;
    if (std::regex_match(Line, M, EvRe)) {
      uint32_t Loc = std::stoul(M[2]);
      uint64_t T = std::stoull(M[3]);
      P.Events[Loc].push_back({M[1] == "ENTER", T, M[4]});
      LastEnter = M[1] == "ENTER" ? std::make_pair(Loc, T)
                                  : std::make_pair(UINT32_MAX, uint64_t(0));
    } else if (Line.find("ADDITIONAL ATTRIBUTES:") != std::string::npos &&
               LastEnter.first != UINT32_MAX) {
      P.Attrs[LastEnter] = Line.substr(Line.find("ADDITIONAL ATTRIBUTES:"));
    }
  }
  return P;
}

std::set<std::string> filesUnder(const std::string &Dir) {
  std::set<std::string> Files;
  for (const auto &E : fs::recursive_directory_iterator(Dir))
    Files.insert(fs::relative(E.path(), Dir).string() +
                 (E.is_directory() ? "/" : ""));
  return Files;
}

uint64_t bytesUnder(const std::string &Dir) {
  uint64_t N = 0;
  for (const auto &E : fs::recursive_directory_iterator(Dir))
    if (E.is_regular_file())
      N += E.file_size();
  return N;
}

bool contains(const std::string &S, const std::string &Part) {
  return S.find(Part) != std::string::npos;
}

} // namespace

// Two processes (one an MPI rank) on two hosts, three threads, a parallel
// region around a loop's chunks, tasks (one nested in another), events given
// interleaved across locations: otf2-print must show every definition and
// event as given.
TEST(Otf2Writer, KnownTraceReadsBack) {
  TempDir D;
  Otf2Clock Clock;
  Clock.TicksPerNs = 2.5;
  Clock.Start = 1000;
  Clock.End = 100000;
  Otf2Writer W(D.Path, "trace", Clock);
  ASSERT_TRUE(W.ok()) << W.error();
  uint32_t A0 = W.addLocation(4242, -1, "node-a", 0);
  uint32_t A1 = W.addLocation(4242, -1, "node-a", 1);
  uint32_t B0 = W.addLocation(4343, 1, "node-b", 0);
  EXPECT_EQ(A0, 0u);
  EXPECT_EQ(A1, 1u);
  EXPECT_EQ(B0, 2u);
  EXPECT_EQ(W.addLocation(4242, -1, "node-a", 1), A1); // the same again
  uint32_t Par =
      W.addRegion("parallel main.c:5", "main.c", 5, RegionKind::Parallel);
  uint32_t Loop = W.addRegion("loop main.c:10", "main.c", 10, RegionKind::Loop);
  uint32_t Chunk =
      W.addRegion("chunk main.c:10", "main.c", 10, RegionKind::LoopChunk);
  uint32_t Task = W.addRegion("task work.c:20", "work.c", 20, RegionKind::Task);
  std::vector<std::string> Names = {"parallel main.c:5", "loop main.c:10",
                                    "chunk main.c:10", "task work.c:20"};

  struct In {
    bool Enter;
    uint64_t T;
    uint32_t Region;
    int64_t First = -1, Last = -1; // chunk attributes when First >= 0
  };
  std::vector<std::vector<In>> Given = {
      {{true, 2000, Par},
       {true, 2100, Loop},
       {true, 2200, Chunk, 0, 9},
       {false, 2300, Chunk},
       {true, 2400, Chunk, 20, 29},
       {false, 2500, Chunk},
       {false, 2600, Loop},
       {true, 2700, Task},
       {false, 2800, Task},
       {false, 2900, Par}},
      {{true, 2000, Par},
       {true, 2100, Loop},
       {true, 2150, Chunk, 10, 19},
       {false, 2350, Chunk},
       {false, 2600, Loop},
       {true, 2650, Task},
       {true, 2660, Task},
       {false, 2670, Task},
       {false, 2750, Task},
       {false, 2900, Par}},
      {{true, 1500, Loop},
       {true, 1500, Chunk, -8, -1},
       {false, 99000, Chunk},
       {false, 99500, Loop}},
  };
  for (size_t I = 0; I < 10; ++I)
    for (uint32_t Loc = 0; Loc < Given.size(); ++Loc) {
      if (I >= Given[Loc].size())
        continue;
      const In &E = Given[Loc][I];
      if (!E.Enter) {
        W.leave(Loc, E.T, E.Region);
        continue;
      }
      GrainAttributes A;
      if (E.Region == Chunk) {
        A.Present = GrainAttributes::HasIterations |
                    GrainAttributes::HasLoopInstance |
                    GrainAttributes::HasCreationCycles;
        A.FirstIteration = E.First;
        A.LastIteration = E.Last;
        A.LoopInstance = 7 + Loc;
        A.CreationCycles = 40 + I;
      }
      W.enter(Loc, E.T, E.Region, E.Region == Chunk ? &A : nullptr);
    }
  std::string Err = "unset";
  ASSERT_TRUE(W.close(&Err)) << Err;
  EXPECT_EQ(Err, "");
  EXPECT_EQ(W.events(), 24u);
  EXPECT_EQ(W.openAtClose(), 0u);

  EXPECT_EQ(
      filesUnder(D.Path),
      (std::set<std::string>{"trace.otf2", "trace.def", "trace/", "trace/0.evt",
                             "trace/0.def", "trace/1.evt", "trace/1.def",
                             "trace/2.evt", "trace/2.def"}));

  int Status;
  std::string Out = otf2Print(D.Path, "-A -Werror", Status);
  ASSERT_EQ(Status, 0) << Out;
  EXPECT_FALSE(contains(Out, "warning")) << Out;
  EXPECT_TRUE(contains(Out, "Number of locations            3")) << Out;
  EXPECT_TRUE(contains(Out, "Creator                        grainchunk-graph"))
      << Out;
  // 2.5 ticks/ns = 2.5e9 ticks/s; the run spans clock ticks 1000..100000.
  EXPECT_TRUE(contains(Out, "CLOCK_PROPERTIES                          Ticks "
                            "per Seconds: 2500000000, Global Offset: 1000, "
                            "Length: 99000, Date: UNDEFINED"))
      << Out;
  for (const char *Want : {
           R"x(SYSTEM_TREE_NODE                       1  Name: "node-a" <)x",
           R"x(SYSTEM_TREE_NODE                       2  Name: "node-b" <)x",
       })
    EXPECT_TRUE(contains(Out, Want)) << Want << "\n" << Out;
  std::regex Group0(
      R"x(LOCATION_GROUP +0  Name: "process 4242" <\d+>, Type: PROCESS, Parent: "node::node-a" <1>)x");
  std::regex Group1(
      R"x(LOCATION_GROUP +1  Name: "rank 1 \(pid 4343\)" <\d+>, Type: PROCESS, Parent: "node::node-b" <2>)x");
  std::regex Loc0(
      R"x(LOCATION +0  Name: "thread 0" <\d+>, Type: CPU_THREAD, # Events: 10, Group: "process 4242" <0>)x");
  std::regex Loc1(
      R"x(LOCATION +1  Name: "thread 1" <\d+>, Type: CPU_THREAD, # Events: 10, Group: "process 4242" <0>)x");
  std::regex Loc2(
      R"x(LOCATION +2  Name: "thread 0" <\d+>, Type: CPU_THREAD, # Events: 4, Group: "rank 1 \(pid 4343\)" <1>)x");
  for (const std::regex *Re : {&Group0, &Group1, &Loc0, &Loc1, &Loc2})
    EXPECT_TRUE(std::regex_search(Out, *Re)) << Out;
  std::regex Regions[] = {
      std::regex(
          R"x(REGION +0  Name: "parallel main.c:5" <\d+> .*Role: PARALLEL, Paradigm: OPENMP, Flags: NONE, File: "main.c" <\d+>, Begin: 5, End: 5)x"),
      std::regex(
          R"x(REGION +1  Name: "loop main.c:10" <\d+> .*Role: LOOP, Paradigm: OPENMP, Flags: NONE, File: "main.c" <\d+>, Begin: 10, End: 10)x"),
      std::regex(
          R"x(REGION +2  Name: "chunk main.c:10" <\d+> .*Role: CODE, Paradigm: OPENMP, Flags: NONE, File: "main.c" <\d+>, Begin: 10, End: 10)x"),
      std::regex(
          R"x(REGION +3  Name: "task work.c:20" <\d+> .*Role: TASK, Paradigm: OPENMP, Flags: NONE, File: "work.c" <\d+>, Begin: 20, End: 20)x"),
  };
  for (const std::regex &Re : Regions)
    EXPECT_TRUE(std::regex_search(Out, Re)) << Out;

  Printed P = parseEvents(Out);
  ASSERT_EQ(P.Events.size(), 3u) << Out;
  for (uint32_t Loc = 0; Loc < Given.size(); ++Loc) {
    std::vector<Ev> Want;
    for (const In &E : Given[Loc])
      Want.push_back({E.Enter, E.T, Names[E.Region]});
    EXPECT_EQ(P.Events[Loc], Want) << "location " << Loc;
  }
  EXPECT_EQ(P.Attrs.size(), 4u) << Out;
  EXPECT_EQ(P.Attrs[std::make_pair(0u, uint64_t(2200))],
            R"x(ADDITIONAL ATTRIBUTES: ("first_iteration" <0>; INT64; 0), )x"
            R"x(("last_iteration" <1>; INT64; 9), ("loop_instance" <2>; )x"
            R"x(UINT64; 7), ("creation_cycles" <3>; UINT64; 42))x");
  EXPECT_TRUE(contains(
      P.Attrs[std::make_pair(2u, uint64_t(1500))],
      R"x(("first_iteration" <0>; INT64; -8), ("last_iteration" <1>; INT64; -1), ("loop_instance" <2>; UINT64; 9))x"))
      << P.Attrs[std::make_pair(2u, uint64_t(1500))];
  // Attributes are given on the enters that have them only.
  EXPECT_EQ(P.Attrs.count(std::make_pair(0u, uint64_t(2000))), 0u);
}

// Events before the run's start or after its end widen the trace; a thread
// without events is a location with none (and an empty event file).
TEST(Otf2Writer, ClockRangeAndEmptyLocation) {
  TempDir D;
  Otf2Clock Clock;
  Clock.TicksPerNs = 1;
  Clock.Start = 5000;
  Clock.End = 6000;
  Clock.RealtimeNs = 1700000000000000000ull;
  Otf2Writer W(D.Path, "trace", Clock);
  uint32_t L = W.addLocation(1, -1, "h", 0);
  uint32_t Empty = W.addLocation(1, -1, "h", 3);
  uint32_t R = W.addRegion("task", "", 0, RegionKind::Task);
  W.enter(L, 4000, R);
  W.leave(L, 7000, R);
  std::string Err;
  ASSERT_TRUE(W.close(&Err)) << Err;
  int Status;
  std::string Out = otf2Print(D.Path, "-A -Werror", Status);
  ASSERT_EQ(Status, 0) << Out;
  EXPECT_TRUE(contains(Out, "Ticks per Seconds: 1000000000, Global Offset: "
                            "4000, Length: 3000, Date: 2023-11-14 22:13:20"))
      << Out;
  EXPECT_TRUE(std::regex_search(
      Out,
      std::regex(
          "LOCATION +" + std::to_string(Empty) +
          R"x(  Name: "thread 3" <\d+>, Type: CPU_THREAD, # Events: 0,)x")))
      << Out;
  EXPECT_TRUE(fs::exists(D.Path + "/trace/1.evt"));
}

// Regions left open (a recording cut short) are left at the location's last
// event time, and counted.
TEST(Otf2Writer, OpenRegionsClosedAtEnd) {
  TempDir D;
  Otf2Writer W(D.Path, "trace", {1.0, 0, 1000});
  uint32_t L = W.addLocation(9, 0, "h", 0);
  uint32_t Loop = W.addRegion("loop", "a.c", 1, RegionKind::Loop);
  uint32_t Chunk = W.addRegion("chunk", "a.c", 1, RegionKind::LoopChunk);
  W.enter(L, 100, Loop);
  W.enter(L, 150, Chunk);
  std::string Err;
  ASSERT_TRUE(W.close(&Err)) << Err;
  EXPECT_EQ(W.openAtClose(), 2u);
  EXPECT_EQ(W.events(), 4u);
  int Status;
  std::string Out = otf2Print(D.Path, "-A -Werror", Status);
  ASSERT_EQ(Status, 0) << Out;
  EXPECT_TRUE(contains(Out, R"x(Name: "rank 0 (pid 9)")x")) << Out;
  EXPECT_TRUE(contains(Out, "# Events: 4,")) << Out;
  Printed P = parseEvents(Out);
  EXPECT_EQ(P.Events[0], (std::vector<Ev>{{true, 100, "loop"},
                                          {true, 150, "chunk"},
                                          {false, 150, "chunk"},
                                          {false, 150, "loop"}}));
}

// A location's events go to its file while they are written (OTF2's file
// layer writes 4 MiB at a time), not all at close(): memory stays bounded
// whatever the trace's size.
TEST(Otf2Writer, FlushesWhileWriting) {
  TempDir D;
  Otf2Writer W(D.Path, "trace", {1.0, 0, 10});
  uint32_t L = W.addLocation(1, -1, "h", 0);
  uint32_t R = W.addRegion("r", "", 0, RegionKind::Task);
  std::string Evt = D.Path + "/trace/0.evt";
  auto Size = [&] { return fs::exists(Evt) ? fs::file_size(Evt) : 0; };
  uint64_t T = 0;
  for (; T < 4000000 && Size() == 0; T += 2) {
    W.enter(L, T, R);
    W.leave(L, T + 1, R);
  }
  uint64_t Before = Size();
  EXPECT_GE(Before, 4u << 20) << "after " << T << " events";
  EXPECT_LT(T, 2000000u);
  std::string Err;
  ASSERT_TRUE(W.close(&Err)) << Err;
  EXPECT_GT(fs::file_size(Evt), Before);
}

namespace {
/// This process's resident memory at its peak (VmHWM, KiB).
long peakKiB() {
  std::ifstream In("/proc/self/status");
  std::string Line;
  while (std::getline(In, Line))
    if (Line.rfind("VmHWM:", 0) == 0)
      return std::stol(Line.substr(6));
  return -1;
}
} // namespace

// The definitions go out through a chunk of 256 KiB, not OTF2's default
// 4 MiB (touched whole however few the definitions: the largest transient
// of writing a small archive): a small archive written in a child process
// raises its peak by less than 3 MiB; and definitions past one chunk are
// flushed, every one read back.
#if defined(__SANITIZE_ADDRESS__)
#define GC_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define GC_ASAN 1
#endif
#endif
TEST(Otf2Writer, DefinitionsInSmallChunks) {
#ifndef GC_ASAN // (AddressSanitizer's own memory is in the peak too)
  {
    TempDir D;
    pid_t Pid = fork();
    ASSERT_GE(Pid, 0);
    if (Pid == 0) {
      long Before = peakKiB();
      {
        Otf2Writer W(D.Path, "trace", {1.0, 0, 10});
        uint32_t L = W.addLocation(1, -1, "h", 0);
        uint32_t R = W.addRegion("r", "", 0, RegionKind::Task);
        W.enter(L, 1, R);
        W.leave(L, 2, R);
        if (!W.close(nullptr))
          _exit(2);
      }
      long Grown = peakKiB() - Before;
      std::fprintf(stderr, "peak grew by %ld KiB\n", Grown);
      _exit(Before > 0 && Grown < 3072 ? 0 : 1);
    }
    int St = 0;
    ASSERT_EQ(waitpid(Pid, &St, 0), Pid);
    ASSERT_TRUE(WIFEXITED(St));
    EXPECT_EQ(WEXITSTATUS(St), 0) << "writing a small archive raised the "
                                     "peak by 3 MiB or more (see stderr)";
  }
#endif
  TempDir D;
  Otf2Writer W(D.Path, "trace", {1.0, 0, 10});
  uint32_t L = W.addLocation(1, -1, "h", 0);
  // About 600 KiB of region names: definitions of three chunks.
  const int Regions = 3000;
  std::string Pad(200, 'x');
  for (int I = 0; I < Regions; I++)
    W.addRegion("region " + std::to_string(I) + " " + Pad, "f.c", uint32_t(I),
                RegionKind::Task);
  W.enter(L, 1, uint32_t(Regions - 1));
  W.leave(L, 2, uint32_t(Regions - 1));
  std::string Err;
  ASSERT_TRUE(W.close(&Err)) << Err;
  int Status;
  std::string Out = otf2Print(D.Path, "-A", Status);
  ASSERT_EQ(Status, 0) << Out.substr(0, 2000);
  EXPECT_TRUE(contains(Out, "Chunk size definitions         262144"))
      << Out.substr(0, 2000);
  size_t N = 0;
  for (size_t At = Out.find("\nREGION"); At != std::string::npos;
       At = Out.find("\nREGION", At + 1))
    N++;
  EXPECT_EQ(N, size_t(Regions));
  Out = otf2Print(D.Path, "", Status);
  ASSERT_EQ(Status, 0);
  EXPECT_TRUE(contains(Out, "\"region " + std::to_string(Regions - 1) + " "));
}

// endLocation() writes a location out early; later events for it are an
// error.
TEST(Otf2Writer, EndLocation) {
  TempDir D;
  Otf2Writer W(D.Path, "trace", {1.0, 0, 1000});
  uint32_t L0 = W.addLocation(1, -1, "h", 0);
  uint32_t L1 = W.addLocation(1, -1, "h", 1);
  uint32_t R = W.addRegion("task", "", 0, RegionKind::Task);
  W.enter(L0, 10, R);
  W.leave(L0, 20, R);
  W.endLocation(L0);
  W.enter(L1, 5, R);
  W.leave(L1, 6, R);
  EXPECT_TRUE(W.ok()) << W.error();
  W.enter(L0, 30, R);
  EXPECT_FALSE(W.ok());
  EXPECT_EQ(W.error(), "OTF2 trace " + D.Path +
                           "/trace.otf2: event for location 0 after "
                           "endLocation()");
}

// Every bad input gives one line naming the problem: close() returns it,
// nothing is printed (OTF2's own messages are captured), nothing crashes.
TEST(Otf2Writer, Errors) {
  TempDir D;
  auto Open = [](const std::string &Dir, const Otf2Clock &C = {1.0, 0, 10}) {
    testing::internal::CaptureStderr();
    std::string Err;
    bool Ok;
    {
      Otf2Writer W(Dir, "trace", C);
      uint32_t L = W.addLocation(1, -1, "h", 0);
      uint32_t R = W.addRegion("r", "", 0, RegionKind::Task);
      W.enter(L, 1, R);
      W.leave(L, 2, R);
      Ok = W.close(&Err);
      EXPECT_EQ(Err, W.error());
    }
    std::string Printed = testing::internal::GetCapturedStderr();
    EXPECT_EQ(Printed, "");
    EXPECT_EQ(Ok, Err.empty());
    return Err;
  };
  std::string Missing = D.Path + "/missing";
  EXPECT_EQ(Open(Missing), "OTF2 trace " + Missing +
                               "/trace.otf2: cannot "
                               "use directory '" +
                               Missing + "': No such file or directory");
  std::string File = D.Path + "/file";
  fclose(fopen(File.c_str(), "w"));
  EXPECT_EQ(Open(File), "OTF2 trace " + File + "/trace.otf2: '" + File +
                            "' is not a directory");
  // /sys: the directory looks writable, but nothing can be created there
  // (root included).
  EXPECT_EQ(Open("/sys"), "OTF2 trace /sys/trace.otf2: cannot create "
                          "'/sys/trace': Operation not permitted");
  if (geteuid() != 0) {
    std::string Ro = D.Path + "/ro";
    fs::create_directory(Ro);
    chmod(Ro.c_str(), 0555);
    EXPECT_TRUE(contains(Open(Ro), "cannot write into directory"));
  }
  std::string Twice = D.Path + "/twice";
  fs::create_directory(Twice);
  EXPECT_EQ(Open(Twice), "");
  EXPECT_EQ(Open(Twice), "OTF2 trace " + Twice + "/trace.otf2: '" + Twice +
                             "/trace.otf2' already exists (remove the "
                             "earlier trace first)");
  std::string Nan = D.Path + "/nan";
  fs::create_directory(Nan);
  EXPECT_EQ(Open(Nan, {0.0, 0, 10}), "OTF2 trace " + Nan +
                                         "/trace.otf2: invalid clock: 0.000000 "
                                         "ticks per ns");
  EXPECT_TRUE(contains(Open(Nan, {NAN, 0, 10}), "invalid clock"));
  EXPECT_FALSE(fs::exists(Nan + "/trace.otf2"));

  // Events the writer refuses.
  struct Case {
    const char *Want;
    void (*Run)(Otf2Writer &, uint32_t L, uint32_t R1, uint32_t R2);
  } Cases[] = {
      {"events out of time order on location 0: 100 after 200",
       [](Otf2Writer &W, uint32_t L, uint32_t R1, uint32_t) {
         W.enter(L, 200, R1);
         W.leave(L, 100, R1);
       }},
      {"leave of region 1 on location 0 at 30, where region 0 is the "
       "innermost open one",
       [](Otf2Writer &W, uint32_t L, uint32_t R1, uint32_t R2) {
         W.enter(L, 10, R1);
         W.enter(L, 20, R2);
         W.leave(L, 25, R2);
         W.leave(L, 30, R2);
       }},
      {"leave of region 0 on location 0 at 5, where no region is open",
       [](Otf2Writer &W, uint32_t L, uint32_t R1, uint32_t) {
         W.leave(L, 5, R1);
       }},
      {"event for location 7, which was not defined",
       [](Otf2Writer &W, uint32_t, uint32_t R1, uint32_t) {
         W.enter(7, 5, R1);
       }},
      {"enter of region 9, which was not defined",
       [](Otf2Writer &W, uint32_t L, uint32_t, uint32_t) { W.enter(L, 5, 9); }},
      {"process 1 given again with another rank or host",
       [](Otf2Writer &W, uint32_t, uint32_t, uint32_t) {
         W.addLocation(1, 3, "h", 1);
       }},
  };
  int N = 0;
  for (const Case &C : Cases) {
    std::string Dir = D.Path + "/case" + std::to_string(N++);
    fs::create_directory(Dir);
    Otf2Writer W(Dir, "trace", {1.0, 0, 10});
    uint32_t L = W.addLocation(1, -1, "h", 0);
    uint32_t R1 = W.addRegion("r1", "", 0, RegionKind::Task);
    uint32_t R2 = W.addRegion("r2", "", 0, RegionKind::Task);
    C.Run(W, L, R1, R2);
    W.enter(L, 1000, R1); // ignored after the error
    std::string Err;
    EXPECT_FALSE(W.close(&Err));
    EXPECT_EQ(Err, "OTF2 trace " + Dir + "/trace.otf2: " + C.Want);
  }
}

// A write that fails half way (the file size limit, as a full disk would)
// is an error naming OTF2's reason, in the child process that hits it.
TEST(Otf2Writer, WriteFailure) {
  TempDir D;
  int Pipe[2];
  ASSERT_EQ(pipe(Pipe), 0);
  pid_t Pid = fork();
  ASSERT_GE(Pid, 0);
  if (Pid == 0) {
    close(Pipe[0]);
    signal(SIGXFSZ, SIG_IGN);
    struct rlimit Lim = {100000, 100000};
    setrlimit(RLIMIT_FSIZE, &Lim);
    std::string Err;
    {
      Otf2Writer W(D.Path, "trace", {1.0, 0, 10});
      uint32_t L = W.addLocation(1, -1, "h", 0);
      uint32_t R = W.addRegion("r", "", 0, RegionKind::Task);
      for (uint64_t T = 0; T < 2000000 && W.ok(); T += 2) {
        W.enter(L, T, R);
        W.leave(L, T + 1, R);
      }
      W.close(&Err);
    }
    if (write(Pipe[1], Err.data(), Err.size()) < 0)
      _exit(3);
    _exit(0);
  }
  close(Pipe[1]);
  std::string Err;
  char Buf[1024];
  ssize_t N;
  while ((N = read(Pipe[0], Buf, sizeof Buf)) > 0)
    Err.append(Buf, N);
  close(Pipe[0]);
  int WS;
  waitpid(Pid, &WS, 0);
  ASSERT_TRUE(WIFEXITED(WS) && WEXITSTATUS(WS) == 0) << WS;
  EXPECT_TRUE(contains(Err, "OTF2 trace " + D.Path + "/trace.otf2: ")) << Err;
  EXPECT_TRUE(contains(Err, "writing")) << Err;
  EXPECT_TRUE(
      contains(Err, "File is too large: POSIX: " + D.Path + "/trace/0.evt"))
      << Err;
}

// Writes Grains chunks (enter, with all five attributes if Attrs, and
// leave) alternately on two threads and prints the time and the archive's
// size per grain, which must stay within the budget of the default output
// directory (200 bytes per grain, for the whole directory).
static void writeGrains(uint64_t Grains, bool Attrs) {
  TempDir D;
  auto Start = std::chrono::steady_clock::now();
  std::clock_t Cpu = std::clock();
  Otf2Writer W(D.Path, "trace", {2.0, 1000, 1000 + Grains * 1300});
  uint32_t Loc[2] = {W.addLocation(1, -1, "h", 0),
                     W.addLocation(1, -1, "h", 1)};
  uint32_t Chunk =
      W.addRegion("chunk main.c:10", "main.c", 10, RegionKind::LoopChunk);
  uint64_t T[2] = {1000, 1000};
  uint64_t Seed = 1;
  for (uint64_t G = 0; G < Grains; ++G) {
    int Th = G & 1;
    Seed = Seed * 6364136223846793005ull + 1442695040888963407ull;
    uint64_t Len = 500 + (Seed >> 54); // 500..1523 ticks
    GrainAttributes A;
    A.Present =
        GrainAttributes::HasIterations | GrainAttributes::HasLoopInstance |
        GrainAttributes::HasCreationCycles | GrainAttributes::HasGrainId;
    A.FirstIteration = int64_t(G) * 4;
    A.LastIteration = int64_t(G) * 4 + 3;
    A.LoopInstance = G / 1000;
    A.CreationCycles = 20 + (Seed >> 60);
    A.GrainId = G;
    W.enter(Loc[Th], T[Th], Chunk, Attrs ? &A : nullptr);
    T[Th] += Len;
    W.leave(Loc[Th], T[Th], Chunk);
    T[Th] += 200;
  }
  std::string Err;
  ASSERT_TRUE(W.close(&Err)) << Err;
  double Secs =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - Start)
          .count();
  double CpuSecs = double(std::clock() - Cpu) / CLOCKS_PER_SEC;
  uint64_t Bytes = bytesUnder(D.Path);
  double PerGrain = double(Bytes) / double(Grains);
  printf("otf2: %llu grains %s attributes in %.2f s (%.2f s of CPU, "
         "%.2f M grains/s of CPU), %llu bytes, %.1f bytes per grain\n",
         (unsigned long long)Grains, Attrs ? "with" : "without", Secs, CpuSecs,
         Grains / CpuSecs / 1e6, (unsigned long long)Bytes, PerGrain);
  EXPECT_EQ(W.events(), 2 * Grains);
  EXPECT_LE(PerGrain, 200.0);
  if (Grains <= 1000000) { // otf2-print reads it all back without a complaint
    int Status;
    std::string Out = otf2Print(D.Path, "--silent -Werror", Status);
    EXPECT_EQ(Status, 0) << Out;
  }
}

TEST(Otf2Writer, BytesPerGrain) {
  uint64_t Grains = 200000;
  if (const char *E = getenv("GRAINCHUNK_OTF2_GRAINS"))
    Grains = std::strtoull(E, nullptr, 10);
  writeGrains(Grains, true);
  writeGrains(Grains, false);
}

namespace {
std::string fileText(const std::string &Path) {
  std::ifstream In(Path, std::ios::binary);
  std::ostringstream S;
  S << In.rdbuf();
  return S.str();
}
} // namespace

// An archive written in parts (Otf2Mode), as an MPI job's ranks and rank 0
// write it: each part its locations' events with the job's ids, one
// writer the definitions with the parts' event counts and time spans, the
// event files moved in. Every file but the anchor (its random trace id) is
// the bytes a Whole writer writes given the same calls; otf2-print the same.
TEST(Otf2Writer, PartsMakeTheWholeArchive) {
  TempDir T;
  Otf2Clock Clk;
  Clk.TicksPerNs = 2.5;
  Clk.Start = 1000;
  Clk.End = 5000;
  GrainAttributes A;
  A.Present = GrainAttributes::HasGrainId;
  // Rank 0: process 10, threads 0 and 1, regions "loop a" and "task b";
  // rank 1: process 20, thread 0, regions "loop a" (the same) and "loop c".
  auto rank0 = [&](Otf2Writer &W) {
    uint32_t Ra = W.addRegion("loop a", "a.c", 3, RegionKind::LoopChunk);
    uint32_t Rb = W.addRegion("task b", "a.c", 9, RegionKind::Task);
    uint32_t L0 = W.addLocation(10, 0, "h", 0);
    uint32_t L1 = W.addLocation(10, 0, "h", 1);
    return std::vector<uint32_t>{Ra, Rb, L0, L1};
  };
  auto events0 = [&](Otf2Writer &W, const std::vector<uint32_t> &Id) {
    A.GrainId = 1;
    W.enter(Id[2], 1100, Id[0], &A);
    W.enter(Id[2], 1200, Id[1], &A);
    W.leave(Id[2], 1300, Id[1]);
    W.leave(Id[2], 1400, Id[0]);
    W.enter(Id[3], 1150, Id[0], &A);
    W.leave(Id[3], 1500, Id[0]);
  };
  auto rank1 = [&](Otf2Writer &W, bool Again) {
    uint32_t Ra =
        Again ? 0 : W.addRegion("loop a", "a.c", 3, RegionKind::LoopChunk);
    uint32_t Rc = W.addRegion("loop c", "c.c", 7, RegionKind::LoopChunk);
    uint32_t L0 = W.addLocation(20, 1, "h", 0);
    return std::vector<uint32_t>{Ra, Rc, L0};
  };
  auto events1 = [&](Otf2Writer &W, const std::vector<uint32_t> &Id) {
    A.GrainId = 2;
    W.enter(Id[2], 900, Id[0], &A);
    W.leave(Id[2], 2000, Id[0]);
    W.enter(Id[2], 2100, Id[1], &A);
    W.leave(Id[2], 6000, Id[1]);
  };
  std::string Whole = T.Path + "/whole", P0 = T.Path + "/p0",
              P1 = T.Path + "/p1", Merged = T.Path + "/merged";
  for (const std::string &D : {Whole, P0, P1, Merged})
    fs::create_directory(D);
  {
    Otf2Writer W(Whole, "trace", Clk);
    events0(W, rank0(W));
    events1(W, rank1(W, true));
    std::string Err;
    ASSERT_TRUE(W.close(&Err)) << Err;
  }
  Otf2Writer E0(P0, "trace", Clk, Otf2Mode::EventsOnly);
  std::vector<uint32_t> Id0 = rank0(E0);
  E0.setGlobalIds(0, {0, 1});
  events0(E0, Id0);
  Otf2Writer E1(P1, "trace", Clk, Otf2Mode::EventsOnly);
  std::vector<uint32_t> Id1 = rank1(E1, false);
  E1.setGlobalIds(2, {0, 2}); // "loop a" is the job's 0, "loop c" its 2
  events1(E1, Id1);
  std::vector<uint64_t> Counts = {E0.locationEvents(0), E0.locationEvents(1),
                                  E1.locationEvents(0)};
  EXPECT_EQ(Counts, (std::vector<uint64_t>{4, 2, 4}));
  EXPECT_EQ(E1.minTime(), 900u);
  EXPECT_EQ(E1.maxTime(), 6000u);
  std::string Err;
  ASSERT_TRUE(E0.close(&Err)) << Err;
  ASSERT_TRUE(E1.close(&Err)) << Err;
  EXPECT_FALSE(fs::exists(P0 + "/trace.def"));
  // The definitions: the same calls as the Whole writer's, the parts'
  // event counts and time spans.
  auto define = [&](Otf2Writer &D) {
    rank0(D);
    rank1(D, true);
    for (uint32_t L = 0; L < 3; ++L)
      D.setLocationEvents(L, Counts[L]);
    D.widenTime(E0.minTime(), E0.maxTime());
    D.widenTime(E1.minTime(), E1.maxTime());
  };
  {
    Otf2Writer D(Merged, "trace", Clk, Otf2Mode::DefinitionsOnly);
    define(D);
    D.enter(0, 1, 0);
    EXPECT_FALSE(D.ok()) << "an event given to a definitions-only writer";
  }
  fs::remove_all(Merged);
  fs::create_directory(Merged);
  {
    Otf2Writer D(Merged, "trace", Clk, Otf2Mode::DefinitionsOnly);
    define(D);
    ASSERT_TRUE(D.close(&Err)) << Err;
  }
  EXPECT_EQ(filesUnder(Merged + "/trace"),
            (std::set<std::string>{"0.def", "1.def", "2.def"}));
  fs::rename(P0 + "/trace/0.evt", Merged + "/trace/0.evt");
  fs::rename(P0 + "/trace/1.evt", Merged + "/trace/1.evt");
  fs::rename(P1 + "/trace/2.evt", Merged + "/trace/2.evt");
  EXPECT_EQ(filesUnder(Merged), filesUnder(Whole));
  for (const std::string &F : filesUnder(Whole))
    if (F != "trace.otf2" && F.back() != '/')
      EXPECT_EQ(fileText(Merged + "/" + F), fileText(Whole + "/" + F)) << F;
  int S1 = 0, S2 = 0;
  std::string Pw = otf2Print(Whole, "", S1), Pm = otf2Print(Merged, "", S2);
  EXPECT_EQ(S1, 0);
  EXPECT_EQ(S2, 0);
  EXPECT_EQ(Pm, Pw);
  EXPECT_TRUE(contains(Pw, "Region: \"loop c\""));
  EXPECT_EQ(otf2Print(Merged, "-G", S2), otf2Print(Whole, "-G", S1));
}
