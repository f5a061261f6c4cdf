//===- shim_test.cpp - GoogleTest suite for libgrainchunk-rt --------------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Drives the runtime shim the way libomp does, through a fake runtime (its
// tool search is fake_runtime.c, which the shim hooks as it hooks libomp;
// its lookup function and ompt_set_callback are defined here), with the
// fake OMPT tools of fake_tool.c found through OMP_TOOL_LIBRARIES. Covers:
//  - the runtime's tool search goes on unchanged through the shim: missing
//    files, libraries without ompt_start_tool, tools that decline (called
//    once, closed again), no tool, OMP_TOOL=disabled, the shim itself in the
//    list, the verbose log;
//  - chaining: the tool gets a lookup whose ompt_set_callback/get_callback
//    the shim watches and everything else untouched, initialize/finalize;
//  - the once-per-chunk logic: the runtime's own first-chunk report is
//    dropped for instrumented loops and kept for the others, every chunk
//    call becomes exactly one event with the loop's parallel/task data,
//    bounds of all four entry points, nesting, per-thread state.
//
// Run: build/test/unit/shim_unittest (ctest runs it as "unit").
//===----------------------------------------------------------------------===//

#include "fake_runtime.h"
#include "fake_tool.h"
#include "grainchunk.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <fstream>
#include <limits>
#include <omp-tools.h>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

extern "C" void grainchunk_testing_reset(void);

namespace {

const std::string ToolDir = FAKE_TOOL_DIR;
const std::string Accept = ToolDir + "/libfake_tool_accept.so";
const std::string Decline = ToolDir + "/libfake_tool_decline.so";
const std::string NoStart = ToolDir + "/libfake_tool_nostart.so";
const std::string ShimLib = SHIM_LIB;

// OpenMP 5.2 values, which older omp-tools.h headers lack.
constexpr int WsLoopChunk = 3;                  // ompt_dispatch_ws_loop_chunk
const ompt_work_t LoopStatic = (ompt_work_t)10; // LoopStatic

// libomp's ident_t layout, as the plugin's calls pass it.
struct Ident {
  int32_t Reserved1, Flags, Reserved2, Reserved3;
  const char *PSource;
};

// ---- The fake runtime ------------------------------------------------------
ompt_callback_t RtCallbacks[64];
int RtAnswer[64];

int rtSetCallback(ompt_callbacks_t Event, ompt_callback_t Cb) {
  RtCallbacks[Event] = Cb;
  return RtAnswer[Event];
}

int rtGetCallback(ompt_callbacks_t Event, ompt_callback_t *Cb) {
  if (!RtCallbacks[Event])
    return 0;
  *Cb = RtCallbacks[Event];
  return 1;
}

int rtInquiry() { return 42; } // stands for any other runtime entry point

ompt_interface_fn_t rtLookup(const char *Name) {
  if (!strcmp(Name, "ompt_set_callback"))
    return (ompt_interface_fn_t)rtSetCallback;
  if (!strcmp(Name, "ompt_get_callback"))
    return (ompt_interface_fn_t)rtGetCallback;
  if (!strcmp(Name, "ompt_get_thread_data"))
    return (ompt_interface_fn_t)rtInquiry;
  return nullptr;
}

ompt_callback_work_t rtWork() {
  return (ompt_callback_work_t)RtCallbacks[ompt_callback_work];
}
ompt_callback_dispatch_t rtDispatch() {
  return (ompt_callback_dispatch_t)RtCallbacks[ompt_callback_dispatch];
}

// The runtime's own first-chunk report from __kmpc_for_static_init.
void runtimeReportsChunk(ompt_data_t *Pd, ompt_data_t *Td, uint64_t Start,
                         uint64_t Its) {
  fake_chunk_t Chunk = {Start, Its};
  ompt_data_t Instance;
  Instance.ptr = &Chunk;
  if (rtDispatch())
    rtDispatch()(Pd, Td, (ompt_dispatch_t)WsLoopChunk, Instance);
}

bool isLoaded(const std::string &Path) {
  void *H = dlopen(Path.c_str(), RTLD_LAZY | RTLD_NOLOAD);
  if (H)
    dlclose(H);
  return H != nullptr;
}

// The accepting tool's record, or null if it was never loaded.
fake_tool_state_t *tool() {
  void *H = dlopen(Accept.c_str(), RTLD_LAZY | RTLD_NOLOAD);
  if (!H)
    return nullptr;
  auto Fn = (fake_tool_state_fn)dlsym(H, "fake_tool_state");
  dlclose(H); // still loaded: the shim keeps the tool it chose open
  return Fn ? Fn() : nullptr;
}

// The accepting tool's own dispatch callback.
ompt_callback_t toolDispatch() {
  void *H = dlopen(Accept.c_str(), RTLD_LAZY | RTLD_NOLOAD);
  if (!H)
    return nullptr;
  auto Fn = (void *(*)())dlsym(H, "fake_tool_dispatch_callback");
  dlclose(H);
  return Fn ? (ompt_callback_t)Fn() : nullptr;
}

class ShimTest : public ::testing::Test {
protected:
  void SetUp() override {
    grainchunk_testing_reset();
    for (int I = 0; I < 64; ++I) {
      RtCallbacks[I] = nullptr;
      RtAnswer[I] = ompt_set_always;
    }
    for (const char *V :
         {"OMP_TOOL", "OMP_TOOL_LIBRARIES", "GRAINCHUNK_VERBOSE",
          "FAKE_TOOL_CALLBACKS", "FAKE_TOOL_INIT_FAIL"})
      unsetenv(V);
    setenv("FAKE_TOOL_CALLBACKS", "d", 1);
    if (fake_tool_state_t *S = tool())
      memset(S, 0, sizeof *S);
  }
  void TearDown() override { grainchunk_testing_reset(); }

  // The runtime's tool search, which the shim has hooked.
  ompt_start_tool_result_t *start() { return fake_runtime_search(); }
  // Starts the shim with the accepting tool and initializes it.
  void startWithTool() {
    setenv("OMP_TOOL_LIBRARIES", Accept.c_str(), 1);
    ompt_start_tool_result_t *R = start();
    ASSERT_NE(R, nullptr);
    ASSERT_EQ(R->initialize(rtLookup, 0, &R->tool_data), 1);
    ASSERT_NE(tool(), nullptr);
  }
};

// ---- Discovery -------------------------------------------------------------

TEST_F(ShimTest, NoToolMeansNullAndNoChunks) {
  EXPECT_EQ(start(), nullptr);
  EXPECT_EQ(__kmpc_should_callback_per_chunk(nullptr), 0);
}

TEST_F(ShimTest, EmptyToolLibrariesMeansNoTool) {
  setenv("OMP_TOOL_LIBRARIES", "", 1);
  EXPECT_EQ(start(), nullptr);
}

TEST_F(ShimTest, OmpToolDisabledIsRespected) {
  setenv("OMP_TOOL", "disabled", 1);
  setenv("OMP_TOOL_LIBRARIES", Accept.c_str(), 1);
  EXPECT_EQ(start(), nullptr);
  fake_tool_state_t *S = tool();
  EXPECT_TRUE(S == nullptr || S->started == 0);
  EXPECT_EQ(__kmpc_should_callback_per_chunk(nullptr), 0);
}

TEST_F(ShimTest, MissingFilesAndNonToolsAreSkipped) {
  std::string List = "/nonexistent/libnothing.so:" + NoStart + ":" + Accept;
  setenv("OMP_TOOL_LIBRARIES", List.c_str(), 1);
  ompt_start_tool_result_t *R = start();
  ASSERT_NE(R, nullptr);
  ASSERT_NE(tool(), nullptr);
  EXPECT_EQ(tool()->started, 1);
  EXPECT_FALSE(isLoaded(NoStart)) << "a library that is no tool stays open";
}

TEST_F(ShimTest, DecliningToolsAreClosedAndTheNextIsTried) {
  std::string List = Decline + "::" + Accept + ":";
  setenv("OMP_TOOL_LIBRARIES", List.c_str(), 1);
  ASSERT_NE(start(), nullptr);
  EXPECT_EQ(tool()->started, 1);
  EXPECT_FALSE(isLoaded(Decline)) << "a declining tool stays open";
}

TEST_F(ShimTest, EachToolIsStartedOnceAndOnlyTheAcceptingOneIsWrapped) {
  std::string List = Decline + ":" + Accept;
  setenv("OMP_TOOL_LIBRARIES", List.c_str(), 1);
  ompt_start_tool_result_t *R = start();
  ASSERT_NE(R, nullptr);
  EXPECT_EQ(tool()->started, 1);
  // The runtime keeps the shim's result, whose initialize chains the tool.
  EXPECT_EQ(tool()->initialized, 0);
  ASSERT_EQ(R->initialize(rtLookup, 0, &R->tool_data), 1);
  EXPECT_EQ(tool()->initialized, 1);
}

TEST_F(ShimTest, OnlyDecliningToolsMeansNull) {
  std::string List = Decline + ":/nonexistent/x.so:" + NoStart;
  setenv("OMP_TOOL_LIBRARIES", List.c_str(), 1);
  EXPECT_EQ(start(), nullptr);
  EXPECT_FALSE(isLoaded(Decline));
  EXPECT_FALSE(isLoaded(NoStart));
}

TEST_F(ShimTest, TheShimItselfInTheListIsSkipped) {
  std::string List = ShimLib + ":" + Accept;
  setenv("OMP_TOOL_LIBRARIES", List.c_str(), 1);
  ASSERT_NE(start(), nullptr);
  EXPECT_EQ(tool()->started, 1);
}

TEST_F(ShimTest, VerboseLogTellsHowTheToolWasFound) {
  std::string Log = ::testing::TempDir() + "grainchunk-verbose.log";
  setenv("GRAINCHUNK_VERBOSE", Log.c_str(), 1);
  std::string List = "/nonexistent/libnothing.so:" + Decline + ":" + Accept;
  setenv("OMP_TOOL_LIBRARIES", List.c_str(), 1);
  ompt_start_tool_result_t *R = start();
  ASSERT_NE(R, nullptr);
  R->initialize(rtLookup, 0, &R->tool_data);
  grainchunk_testing_reset(); // flushes and closes the log
  std::ifstream In(Log);
  std::stringstream Text;
  Text << In.rdbuf();
  std::string T = Text.str();
  EXPECT_NE(T.find("fake runtime called the ompt_start_tool of " + Decline +
                   ": declined"),
            std::string::npos)
      << T;
  EXPECT_NE(T.find("fake runtime called the ompt_start_tool of " + Accept +
                   ": accepted"),
            std::string::npos)
      << T;
  EXPECT_NE(T.find("chunk events on"), std::string::npos) << T;
}

// ---- Chaining
// ----------------------------------------------------------------

TEST_F(ShimTest, ToolGetsWatchedSetCallbackAndTheRestUntouched) {
  startWithTool();
  fake_tool_state_t *S = tool();
  EXPECT_EQ(S->initialized, 1);
  EXPECT_EQ(S->dispatch_answer, ompt_set_always);
  // Everything but set/get_callback is the runtime's own.
  EXPECT_EQ(S->lookup("ompt_get_thread_data"), (ompt_interface_fn_t)rtInquiry);
  EXPECT_EQ(S->lookup("no_such_entry"), nullptr);
  EXPECT_NE(S->lookup("ompt_set_callback"), (ompt_interface_fn_t)rtSetCallback);
  // The runtime calls the shim, which needs the loop's work events.
  EXPECT_NE(RtCallbacks[ompt_callback_dispatch], nullptr);
  EXPECT_NE(RtCallbacks[ompt_callback_dispatch], toolDispatch());
  EXPECT_NE(RtCallbacks[ompt_callback_work], nullptr);
  // The tool's get_callback answers with its own callbacks.
  auto Get = (ompt_get_callback_t)S->lookup("ompt_get_callback");
  ompt_callback_t Cb = nullptr;
  EXPECT_EQ(Get(ompt_callback_dispatch, &Cb), 1);
  EXPECT_EQ(Cb, toolDispatch());
  EXPECT_EQ(Get(ompt_callback_work, &Cb), 0) << "the tool did not ask for work";
  EXPECT_EQ(__kmpc_should_callback_per_chunk(nullptr), GRAINCHUNK_WANT_CHUNKS);
}

TEST_F(ShimTest, ToolWorkCallbackSeesEveryEventUnchanged) {
  setenv("FAKE_TOOL_CALLBACKS", "dw", 1);
  startWithTool();
  EXPECT_EQ(tool()->work_answer, ompt_set_always);
  ompt_data_t Pd{}, Td{};
  rtWork()(LoopStatic, ompt_scope_begin, &Pd, &Td, 10, nullptr);
  rtWork()(ompt_work_sections, ompt_scope_begin, &Pd, &Td, 2, nullptr);
  rtWork()(LoopStatic, ompt_scope_end, &Pd, &Td, 10, nullptr);
  EXPECT_EQ(tool()->n_work, 3);
}

TEST_F(ShimTest, ToolWithoutDispatchGetsNoChunksAndNoWorkHook) {
  setenv("FAKE_TOOL_CALLBACKS", "", 1);
  startWithTool();
  EXPECT_EQ(RtCallbacks[ompt_callback_dispatch], nullptr);
  EXPECT_EQ(RtCallbacks[ompt_callback_work], nullptr);
  EXPECT_EQ(__kmpc_should_callback_per_chunk(nullptr), 0);
}

TEST_F(ShimTest, ToolThatFailsInitializeGetsNothing) {
  setenv("FAKE_TOOL_INIT_FAIL", "1", 1);
  setenv("OMP_TOOL_LIBRARIES", Accept.c_str(), 1);
  ompt_start_tool_result_t *R = start();
  ASSERT_NE(R, nullptr);
  EXPECT_EQ(R->initialize(rtLookup, 0, &R->tool_data), 0);
  EXPECT_EQ(__kmpc_should_callback_per_chunk(nullptr), 0);
}

TEST_F(ShimTest, RuntimeThatCannotDispatchStillGetsChunksFromTheShim) {
  RtAnswer[ompt_callback_dispatch] = ompt_set_never;
  startWithTool();
  EXPECT_EQ(tool()->dispatch_answer, ompt_set_sometimes);
  EXPECT_EQ(__kmpc_should_callback_per_chunk(nullptr), GRAINCHUNK_WANT_CHUNKS);
}

TEST_F(ShimTest, RuntimeWithoutWorkEventsTurnsChunksOff) {
  RtAnswer[ompt_callback_work] = ompt_set_never;
  startWithTool();
  EXPECT_EQ(__kmpc_should_callback_per_chunk(nullptr), 0);
}

TEST_F(ShimTest, ClearingDispatchStopsChunks) {
  startWithTool();
  auto Set = (ompt_set_callback_t)tool()->lookup("ompt_set_callback");
  Set(ompt_callback_dispatch, nullptr);
  EXPECT_EQ(RtCallbacks[ompt_callback_dispatch], nullptr);
  EXPECT_EQ(RtCallbacks[ompt_callback_work], nullptr);
  EXPECT_EQ(__kmpc_should_callback_per_chunk(nullptr), 0);
}

TEST_F(ShimTest, FinalizeReachesToolAndStopsChunks) {
  setenv("OMP_TOOL_LIBRARIES", Accept.c_str(), 1);
  ompt_start_tool_result_t *R = start();
  ASSERT_NE(R, nullptr);
  R->initialize(rtLookup, 0, &R->tool_data);
  R->finalize(&R->tool_data);
  EXPECT_EQ(tool()->finalized, 1);
  EXPECT_EQ(__kmpc_should_callback_per_chunk(nullptr), 0);
}

// ---- Once per chunk -------------------------------------------------------

TEST_F(ShimTest, EveryChunkOnceAndTheRuntimesFirstReportDropped) {
  startWithTool();
  ompt_data_t Pd{}, Td{};
  Ident Loc = {0, 2, 0, 0, ";loops.c;f;12;1;;"};
  auto *L = reinterpret_cast<ident_t *>(&Loc);
  // Thread 0 of 2, 10 iterations, chunk 3: chunks [0,2] and [6,8]. (The
  // loop work type of OpenMP 5.0, which libomp 14-16 send.)
  ASSERT_EQ(__kmpc_should_callback_per_chunk(L), GRAINCHUNK_WANT_CHUNKS);
  rtWork()(ompt_work_loop, ompt_scope_begin, &Pd, &Td, 10, nullptr);
  runtimeReportsChunk(&Pd, &Td, 0, 3); // from __kmpc_for_static_init
  __kmpc_for_static_chunk_4(L, 0, 0, 0, 2);
  __kmpc_for_static_chunk_4(L, 0, 0, 6, 8);
  rtWork()(ompt_work_loop, ompt_scope_end, &Pd, &Td, 10, nullptr);
  fake_tool_state_t *S = tool();
  ASSERT_EQ(S->n_events, 2);
  for (int I = 0; I < 2; ++I) {
    EXPECT_EQ(S->events[I].parallel_data, &Pd);
    EXPECT_EQ(S->events[I].task_data, &Td);
    EXPECT_EQ(S->events[I].kind, WsLoopChunk);
    EXPECT_EQ(S->events[I].iterations, 3u);
    EXPECT_TRUE(S->events[I].has_info);
    EXPECT_STREQ(S->events[I].psource, ";loops.c;f;12;1;;");
  }
  EXPECT_EQ(S->events[0].start, 0u);
  EXPECT_EQ(S->events[1].start, 6u);
  // Thread 1's last chunk [9,9] holds the last iteration.
  ASSERT_EQ(__kmpc_should_callback_per_chunk(L), GRAINCHUNK_WANT_CHUNKS);
  rtWork()(LoopStatic, ompt_scope_begin, &Pd, &Td, 10, nullptr);
  __kmpc_for_static_chunk_4(L, 0, 1, 9, 9);
  rtWork()(LoopStatic, ompt_scope_end, &Pd, &Td, 10, nullptr);
  ASSERT_EQ(S->n_events, 3);
  EXPECT_EQ(S->events[2].start, 9u);
  EXPECT_EQ(S->events[2].iterations, 1u);
  EXPECT_EQ(S->events[2].is_last, 1);
  EXPECT_EQ(S->events[0].is_last, 0);
  // Outside a delivered event the extension says no.
  grainchunk_chunk_info_t Info;
  EXPECT_EQ(grainchunk_get_chunk_info(&Info), 0);
}

TEST_F(ShimTest, OneThreadTeamWithoutRuntimeReportGetsEveryChunk) {
  startWithTool();
  ompt_data_t Pd{}, Td{};
  ASSERT_TRUE(__kmpc_should_callback_per_chunk(nullptr));
  rtWork()(LoopStatic, ompt_scope_begin, &Pd, &Td, 5, nullptr);
  __kmpc_for_static_chunk_8(nullptr, 0, 0, 0, 3);
  // A dispatch event the runtime sends later in the same task (another
  // construct) is not the first chunk's report: it must pass.
  runtimeReportsChunk(&Pd, &Td, 100, 7);
  __kmpc_for_static_chunk_8(nullptr, 0, 1, 4, 4);
  rtWork()(LoopStatic, ompt_scope_end, &Pd, &Td, 5, nullptr);
  fake_tool_state_t *S = tool();
  ASSERT_EQ(S->n_events, 3);
  EXPECT_EQ(S->events[0].start, 0u);
  EXPECT_EQ(S->events[0].iterations, 4u);
  EXPECT_EQ(S->events[1].start, 100u);
  EXPECT_FALSE(S->events[1].has_info) << "the runtime's event is not ours";
  EXPECT_EQ(S->events[2].start, 4u);
  EXPECT_EQ(S->events[2].iterations, 1u);
  EXPECT_EQ(S->events[2].psource, nullptr);
}

TEST_F(ShimTest, LoopsTheShimDoesNotOwnKeepTheRuntimesReports) {
  startWithTool();
  ompt_data_t Pd{}, Td{};
  // An uninstrumented loop: no __kmpc_should_callback_per_chunk before it.
  rtWork()(LoopStatic, ompt_scope_begin, &Pd, &Td, 8, nullptr);
  runtimeReportsChunk(&Pd, &Td, 0, 4);
  __kmpc_for_static_chunk_4(nullptr, 0, 0, 0, 3); // no loop of ours: ignored
  rtWork()(LoopStatic, ompt_scope_end, &Pd, &Td, 8, nullptr);
  // Chunk calls outside any loop are ignored too.
  __kmpc_for_static_chunk_4(nullptr, 0, 0, 0, 3);
  fake_tool_state_t *S = tool();
  ASSERT_EQ(S->n_events, 1);
  EXPECT_EQ(S->events[0].start, 0u);
  EXPECT_EQ(S->events[0].iterations, 4u);
  EXPECT_FALSE(S->events[0].has_info);
}

TEST_F(ShimTest, BoundsOfEveryEntryPoint) {
  startWithTool();
  ompt_data_t Pd{}, Td{};
  ASSERT_TRUE(__kmpc_should_callback_per_chunk(nullptr));
  rtWork()(LoopStatic, ompt_scope_begin, &Pd, &Td, 0, nullptr);
  const int32_t I32Max = std::numeric_limits<int32_t>::max();
  const uint32_t U32Max = std::numeric_limits<uint32_t>::max();
  const int64_t I64Max = std::numeric_limits<int64_t>::max();
  const uint64_t U64Max = std::numeric_limits<uint64_t>::max();
  __kmpc_for_static_chunk_4(nullptr, 0, 0, 0, I32Max);
  __kmpc_for_static_chunk_4(nullptr, 0, 0, -5, -2);
  __kmpc_for_static_chunk_4u(nullptr, 0, 0, U32Max - 3, U32Max);
  __kmpc_for_static_chunk_4u(nullptr, 0, 0, 0, U32Max);
  __kmpc_for_static_chunk_8(nullptr, 0, 0, I64Max - 1, I64Max);
  __kmpc_for_static_chunk_8(nullptr, 0, 0, 0, I64Max);
  __kmpc_for_static_chunk_8u(nullptr, 0, 0, U64Max - 9, U64Max);
  __kmpc_for_static_chunk_8u(nullptr, 0, 1, 0, U64Max - 1);
  rtWork()(LoopStatic, ompt_scope_end, &Pd, &Td, 0, nullptr);
  struct {
    uint64_t Start, Its;
  } Want[] = {{0, (uint64_t)I32Max + 1}, {(uint64_t)-5, 4},
              {U32Max - 3, 4},           {0, (uint64_t)U32Max + 1},
              {(uint64_t)I64Max - 1, 2}, {0, (uint64_t)I64Max + 1},
              {U64Max - 9, 10},          {0, U64Max}};
  fake_tool_state_t *S = tool();
  ASSERT_EQ(S->n_events, 8);
  for (int I = 0; I < 8; ++I) {
    EXPECT_EQ(S->events[I].start, Want[I].Start) << "event " << I;
    EXPECT_EQ(S->events[I].iterations, Want[I].Its) << "event " << I;
  }
  EXPECT_EQ(S->events[7].is_last, 1);
}

TEST_F(ShimTest, DistributeLoopsReportDistributeChunks) {
  startWithTool();
  ompt_data_t LeaguePd{}, TeamTd{}, Pd{}, Td{};
  // A team's distribute loop, then a worksharing loop inside its chunk.
  ASSERT_TRUE(__kmpc_should_callback_per_chunk(nullptr));
  rtWork()(ompt_work_distribute, ompt_scope_begin, &LeaguePd, &TeamTd, 0,
           nullptr);
  fake_chunk_t First = {0, 4};
  ompt_data_t Instance;
  Instance.ptr = &First;
  rtDispatch()(&LeaguePd, &TeamTd, (ompt_dispatch_t)5, Instance); // dropped
  __kmpc_for_static_chunk_4(nullptr, 0, 0, 0, 3);
  ASSERT_TRUE(__kmpc_should_callback_per_chunk(nullptr));
  rtWork()(LoopStatic, ompt_scope_begin, &Pd, &Td, 0, nullptr);
  __kmpc_for_static_chunk_4(nullptr, 0, 1, 0, 3);
  rtWork()(LoopStatic, ompt_scope_end, &Pd, &Td, 0, nullptr);
  rtWork()(ompt_work_distribute, ompt_scope_end, &LeaguePd, &TeamTd, 0,
           nullptr);
  fake_tool_state_t *S = tool();
  ASSERT_EQ(S->n_events, 2);
  EXPECT_EQ(S->events[0].kind, 5);
  EXPECT_EQ(S->events[0].task_data, &TeamTd);
  EXPECT_EQ(S->events[1].kind, WsLoopChunk);
  EXPECT_EQ(S->events[1].task_data, &Td);
}

TEST_F(ShimTest, NestedLoopsReportWithTheInnerLoopsData) {
  startWithTool();
  ompt_data_t OuterPd{}, OuterTd{}, InnerPd{}, InnerTd{};
  ASSERT_TRUE(__kmpc_should_callback_per_chunk(nullptr));
  rtWork()(LoopStatic, ompt_scope_begin, &OuterPd, &OuterTd, 0, nullptr);
  __kmpc_for_static_chunk_4(nullptr, 0, 0, 0, 1);
  // A nested parallel region inside the chunk, with its own loop.
  ASSERT_TRUE(__kmpc_should_callback_per_chunk(nullptr));
  rtWork()(LoopStatic, ompt_scope_begin, &InnerPd, &InnerTd, 0, nullptr);
  runtimeReportsChunk(&InnerPd, &InnerTd, 0, 2); // dropped
  __kmpc_for_static_chunk_4(nullptr, 0, 0, 0, 1);
  rtWork()(LoopStatic, ompt_scope_end, &InnerPd, &InnerTd, 0, nullptr);
  __kmpc_for_static_chunk_4(nullptr, 0, 1, 4, 5);
  rtWork()(LoopStatic, ompt_scope_end, &OuterPd, &OuterTd, 0, nullptr);
  fake_tool_state_t *S = tool();
  ASSERT_EQ(S->n_events, 3);
  EXPECT_EQ(S->events[0].task_data, &OuterTd);
  EXPECT_EQ(S->events[1].task_data, &InnerTd);
  EXPECT_EQ(S->events[1].parallel_data, &InnerPd);
  EXPECT_EQ(S->events[2].task_data, &OuterTd);
  EXPECT_EQ(S->events[2].start, 4u);
}

TEST_F(ShimTest, EachThreadHasItsOwnLoop) {
  startWithTool();
  ompt_data_t Pd{}, Td0{}, Td1{};
  ASSERT_TRUE(__kmpc_should_callback_per_chunk(nullptr));
  rtWork()(LoopStatic, ompt_scope_begin, &Pd, &Td0, 0, nullptr);
  std::thread Other([&] {
    // This thread never announced a loop: its chunk calls are ignored and
    // the runtime's report reaches the tool.
    __kmpc_for_static_chunk_4(nullptr, 1, 0, 2, 3);
    rtWork()(LoopStatic, ompt_scope_begin, &Pd, &Td1, 0, nullptr);
    runtimeReportsChunk(&Pd, &Td1, 2, 2);
    rtWork()(LoopStatic, ompt_scope_end, &Pd, &Td1, 0, nullptr);
  });
  Other.join();
  __kmpc_for_static_chunk_4(nullptr, 0, 0, 0, 1);
  rtWork()(LoopStatic, ompt_scope_end, &Pd, &Td0, 0, nullptr);
  fake_tool_state_t *S = tool();
  ASSERT_EQ(S->n_events, 2);
  EXPECT_EQ(S->events[0].task_data, &Td1);
  EXPECT_FALSE(S->events[0].has_info);
  EXPECT_EQ(S->events[1].task_data, &Td0);
  EXPECT_TRUE(S->events[1].has_info);
}

TEST_F(ShimTest, LoopsTheShimNeverOpenedDoNotCloseTheOuterLoop) {
  // libomp gives a serialized inner region the outer region's addresses: the
  // end of an inner loop the shim did not instrument (dynamic, stock-built
  // library) has the outer loop's parallel_data/task_data.
  startWithTool();
  ompt_data_t Pd{}, Td{};
  ASSERT_TRUE(__kmpc_should_callback_per_chunk(nullptr));
  rtWork()(LoopStatic, ompt_scope_begin, &Pd, &Td, 6, nullptr);
  __kmpc_for_static_chunk_4(nullptr, 0, 0, 0, 1);
  rtWork()((ompt_work_t)11, ompt_scope_begin, &Pd, &Td, 5, nullptr);
  runtimeReportsChunk(&Pd, &Td, 0, 1); // a dynamic chunk: the runtime's
  rtWork()((ompt_work_t)11, ompt_scope_end, &Pd, &Td, 5, nullptr);
  __kmpc_for_static_chunk_4(nullptr, 0, 0, 2, 3);
  __kmpc_for_static_chunk_4(nullptr, 0, 1, 4, 5);
  rtWork()(LoopStatic, ompt_scope_end, &Pd, &Td, 6, nullptr);
  fake_tool_state_t *S = tool();
  ASSERT_EQ(S->n_events, 4);
  EXPECT_EQ(S->events[0].start, 0u);
  EXPECT_FALSE(S->events[1].has_info) << "the runtime's dynamic chunk";
  EXPECT_EQ(S->events[2].start, 2u);
  EXPECT_EQ(S->events[3].start, 4u);
  EXPECT_EQ(S->events[3].task_data, &Td);
}

TEST_F(ShimTest, NestingHasNoDepthLimit) {
  startWithTool();
  constexpr int Depth = 200; // records move to the heap past the TLS block
  static ompt_data_t Pd[Depth], Td[Depth];
  for (int D = 0; D < Depth; ++D) {
    ASSERT_TRUE(__kmpc_should_callback_per_chunk(nullptr)) << D;
    rtWork()(LoopStatic, ompt_scope_begin, &Pd[D], &Td[D], 4, nullptr);
    __kmpc_for_static_chunk_4(nullptr, 0, 0, 0, 1);
  }
  for (int D = Depth - 1; D >= 0; --D) {
    __kmpc_for_static_chunk_4(nullptr, 0, 1, 2, 3);
    rtWork()(LoopStatic, ompt_scope_end, &Pd[D], &Td[D], 4, nullptr);
  }
  fake_tool_state_t *S = tool();
  ASSERT_EQ(S->n_events, FAKE_TOOL_MAX_EVENTS); // the tool keeps the first
  for (int I = 0; I < FAKE_TOOL_MAX_EVENTS; ++I)
    EXPECT_EQ(S->events[I].task_data, &Td[I]) << I;
  // After the nest, nothing is open.
  __kmpc_for_static_chunk_4(nullptr, 0, 0, 0, 1);
  EXPECT_EQ(S->n_events, FAKE_TOOL_MAX_EVENTS);
  EXPECT_EQ(S->n_dropped, 2 * Depth - FAKE_TOOL_MAX_EVENTS);
}

TEST_F(ShimTest, AnEndTheRuntimeNeverSentIsRecovered) {
  // A cancelled dynamic loop sends no work end; the outer loop's end then
  // closes it too, and the outer region's next loop starts clean.
  startWithTool();
  ompt_data_t Pd{}, Td{}, InPd{}, InTd{};
  ASSERT_TRUE(__kmpc_should_callback_per_chunk(nullptr));
  rtWork()(LoopStatic, ompt_scope_begin, &Pd, &Td, 4, nullptr);
  rtWork()((ompt_work_t)11, ompt_scope_begin, &InPd, &InTd, 5, nullptr);
  rtWork()(LoopStatic, ompt_scope_end, &Pd, &Td, 4, nullptr);
  ASSERT_TRUE(__kmpc_should_callback_per_chunk(nullptr));
  rtWork()(LoopStatic, ompt_scope_begin, &Pd, &Td, 4, nullptr);
  __kmpc_for_static_chunk_4(nullptr, 0, 1, 0, 3);
  rtWork()(LoopStatic, ompt_scope_end, &Pd, &Td, 4, nullptr);
  fake_tool_state_t *S = tool();
  ASSERT_EQ(S->n_events, 1);
  EXPECT_EQ(S->events[0].task_data, &Td);
}

// ---- Extension events (producers.c, registry.c) ----------------------------

struct ExtEvent {
  char What; // L loop, C chunk, T task
  int A = 0, B = 0;
  int64_t Lo = 0, Hi = 0, Step = 0;
  double Dur = 0;
  const void *Ra = nullptr;
  ompt_data_t *Td = nullptr;
};
std::vector<ExtEvent> ExtEvents;
double FakeClock;
double fakeTime() { return FakeClock += 1; }
void onLoop(ext_loop_sched_t Sched, ompt_scope_endpoint_t End, ompt_data_t *,
            ompt_data_t *Td, int Signed, int64_t Step, const void *Ra) {
  ExtEvent E{'L', (int)Sched * 10 + (int)End, Signed};
  E.Step = Step, E.Ra = Ra, E.Td = Td;
  ExtEvents.push_back(E);
}
void onChunk(ompt_data_t *Td, int64_t Lo, int64_t Hi, double Dur, int Last) {
  ExtEvent E{'C', Last};
  E.Lo = Lo, E.Hi = Hi, E.Dur = Dur, E.Td = Td;
  ExtEvents.push_back(E);
}
int StdCreates;
void onStdTaskCreate(ompt_data_t *, const ompt_frame_t *, ompt_data_t *, int,
                     int, const void *) {
  ++StdCreates;
}
void onTask(ompt_data_t *, const ompt_frame_t *, ompt_data_t *Task, int Flags,
            int Deps, double Dur, const void *Ra) {
  ExtEvent E{'T', Flags, Deps};
  E.Dur = Dur, E.Ra = Ra, E.Td = Task;
  E.Lo = StdCreates;
  ExtEvents.push_back(E);
}

bool inShim(const void *P) {
  Dl_info I;
  return dladdr(P, &I) && I.dli_fname &&
         std::string(I.dli_fname).find("grainchunk-rt") != std::string::npos;
}

class ExtTest : public ShimTest {
protected:
  void SetUp() override {
    ShimTest::SetUp();
    ExtEvents.clear();
    FakeClock = 0;
    StdCreates = 0;
    fake_static_init_hook = nullptr;
    fake_dispatch_next_hook = nullptr;
    fake_cancellation = 0;
    setenv("FAKE_TOOL_CALLBACKS", "", 1);
    startWithTool();
    Set = (ompt_set_callback_t)tool()->lookup("ompt_set_callback");
    Get = (ompt_get_callback_t)tool()->lookup("ompt_get_callback");
  }
  void TearDown() override {
    fake_static_init_hook = nullptr;
    fake_dispatch_next_hook = nullptr;
    fake_dispatch_init_hook = nullptr;
    ShimTest::TearDown();
  }
  int set(int Ev, ompt_callback_t Cb) { return Set((ompt_callbacks_t)Ev, Cb); }
  void registerAll(bool Clock = true) {
    if (Clock)
      ASSERT_EQ(set(ext_tool_time, (ompt_callback_t)fakeTime), ompt_set_always);
    ASSERT_EQ(set(ext_callback_loop, (ompt_callback_t)onLoop), ompt_set_always);
    ASSERT_EQ(set(ext_callback_chunk, (ompt_callback_t)onChunk),
              ompt_set_always);
    ASSERT_EQ(set(ext_callback_task_create, (ompt_callback_t)onTask),
              ompt_set_always);
  }
  ompt_set_callback_t Set = nullptr;
  ompt_get_callback_t Get = nullptr;
};

TEST_F(ExtTest, RegistrationAnswersAndGetCallback) {
  registerAll();
  ompt_callback_t Cb = nullptr;
  EXPECT_EQ(Get((ompt_callbacks_t)ext_callback_chunk, &Cb), 1);
  EXPECT_EQ(Cb, (ompt_callback_t)onChunk);
  EXPECT_EQ(Get((ompt_callbacks_t)ext_tool_time, &Cb), 1);
  EXPECT_EQ(Cb, (ompt_callback_t)fakeTime);
  // The loop events need the runtime's work events, even for a tool
  // without dispatch or work callbacks.
  EXPECT_NE(RtCallbacks[ompt_callback_work], nullptr);
  // Chunk callback and clock: chunk calls and chunk-end calls.
  EXPECT_EQ(__kmpc_should_callback_per_chunk(nullptr),
            GRAINCHUNK_WANT_CHUNKS | GRAINCHUNK_WANT_CHUNK_END);
  EXPECT_EQ(set(ext_tool_time, nullptr), ompt_set_always);
  EXPECT_EQ(Get((ompt_callbacks_t)ext_tool_time, &Cb), 0);
  EXPECT_EQ(__kmpc_should_callback_per_chunk(nullptr), GRAINCHUNK_WANT_CHUNKS);
  EXPECT_EQ(set(ext_callback_chunk, nullptr), ompt_set_always);
  EXPECT_EQ(__kmpc_should_callback_per_chunk(nullptr), 0);
  EXPECT_EQ(set(ext_callback_loop, nullptr), ompt_set_always);
  EXPECT_EQ(RtCallbacks[ompt_callback_work], nullptr);
}

TEST_F(ExtTest, RuntimeWithoutWorkEventsRefusesLoopAndChunkEvents) {
  RtAnswer[ompt_callback_work] = ompt_set_never;
  EXPECT_EQ(set(ext_callback_loop, (ompt_callback_t)onLoop), ompt_set_never);
  EXPECT_EQ(set(ext_callback_chunk, (ompt_callback_t)onChunk), ompt_set_never);
  ompt_callback_t Cb = nullptr;
  EXPECT_EQ(Get((ompt_callbacks_t)ext_callback_loop, &Cb), 0);
  EXPECT_EQ(__kmpc_should_callback_per_chunk(nullptr), 0);
}

// libomp's part in a static loop: thread 0 of 2, schedule(static, 4) over
// [0, 9]: the first chunk [0, 3], stride 8; the work begin event.
ompt_data_t LoopPd, LoopTd;
const void *RuntimeRa;
void staticInitTid0(int32_t, int32_t *Lo, int32_t *Up, int32_t *St, int32_t,
                    int32_t Chunk, const void *Ra) {
  RuntimeRa = Ra;
  EXPECT_EQ(*Lo, 0);
  EXPECT_EQ(*Up, 9);
  *Up = *Lo + Chunk - 1;
  *St = 2 * Chunk;
  rtWork()(LoopStatic, ompt_scope_begin, &LoopPd, &LoopTd, 0, Ra);
}

TEST_F(ExtTest, StaticLoopBuiltWithoutThePluginReportsEveryChunkAtItsStart) {
  registerAll();
  fake_static_init_hook = staticInitTid0;
  int32_t Last = 0, Lo = 0, Up = 9, St = 1;
  __kmpc_for_static_init_4(nullptr, 0, 33, &Last, &Lo, &Up, &St, 1, 4);
  EXPECT_EQ(Lo, 0);
  EXPECT_EQ(Up, 3);
  EXPECT_EQ(St, 8) << "the runtime's answers reach the program unchanged";
  ASSERT_EQ(ExtEvents.size(), 3u);
  EXPECT_EQ(ExtEvents[0].What, 'L');
  EXPECT_EQ(ExtEvents[0].A, ext_loop_sched_static * 10 + ompt_scope_begin);
  EXPECT_EQ(ExtEvents[0].B, 1) << "signed";
  EXPECT_EQ(ExtEvents[0].Step, 1);
  EXPECT_EQ(ExtEvents[0].Td, &LoopTd);
  // The runtime ran from inside the library; the tool gets the program's
  // call site, not the library's.
  EXPECT_TRUE(inShim(RuntimeRa));
  EXPECT_FALSE(inShim(ExtEvents[0].Ra));
  EXPECT_NE(ExtEvents[0].Ra, nullptr);
  // [0, 3] at its start, timed; then [8, 9] ahead, untimed, with the
  // loop's last iteration. Cancellation is off: it surely runs.
  EXPECT_EQ(ExtEvents[1].What, 'C');
  EXPECT_EQ(ExtEvents[1].Lo, 0);
  EXPECT_EQ(ExtEvents[1].Hi, 3);
  EXPECT_EQ(ExtEvents[1].A, 0);
  EXPECT_GT(ExtEvents[1].Dur, 0);
  EXPECT_EQ(ExtEvents[2].Lo, 8);
  EXPECT_EQ(ExtEvents[2].Hi, 9);
  EXPECT_EQ(ExtEvents[2].A, GRAINCHUNK_CHUNK_LAST | GRAINCHUNK_CHUNK_AHEAD);
  EXPECT_EQ(ExtEvents[2].Dur, 0);
  rtWork()(LoopStatic, ompt_scope_end, &LoopPd, &LoopTd, 0, &Lo);
  ASSERT_EQ(ExtEvents.size(), 4u);
  EXPECT_EQ(ExtEvents[3].A, ext_loop_sched_static * 10 + ompt_scope_end);
  EXPECT_EQ(ExtEvents[3].Ra, &Lo);
}

// Thread 1 of 2 of the same loop: [4, 7] only, without the last iteration.
void staticInitTid1(int32_t, int32_t *Lo, int32_t *Up, int32_t *St, int32_t,
                    int32_t Chunk, const void *Ra) {
  *Lo = Chunk, *Up = 2 * Chunk - 1, *St = 2 * Chunk;
  rtWork()(LoopStatic, ompt_scope_begin, &LoopPd, &LoopTd, 0, Ra);
}

// schedule(static, 2) over [0, 9], one thread of 2: [0, 1], [4, 5], [8, 9];
// as a worksharing loop or (Kind) a distribute loop.
ompt_work_t StaticKind;
void staticInitTid0Of2Chunk2(int32_t, int32_t *Lo, int32_t *Up, int32_t *St,
                             int32_t, int32_t, const void *Ra) {
  *Lo = 0, *Up = 1, *St = 4;
  rtWork()(StaticKind, ompt_scope_begin, &LoopPd, &LoopTd, 0, Ra);
}

std::vector<int> chunkFlags() {
  std::vector<int> F;
  for (const ExtEvent &E : ExtEvents)
    if (E.What == 'C')
      F.push_back(E.A);
  return F;
}

std::vector<int> runStaticChunk2(ompt_work_t Kind) {
  StaticKind = Kind;
  fake_static_init_hook = staticInitTid0Of2Chunk2;
  ExtEvents.clear();
  int32_t L = 0, Lo = 0, Up = 9, St = 1;
  __kmpc_for_static_init_4(nullptr, 0, 33, &L, &Lo, &Up, &St, 1, 2);
  rtWork()(Kind, ompt_scope_end, &LoopPd, &LoopTd, 0, &Lo);
  return chunkFlags();
}
const int Ahead = GRAINCHUNK_CHUNK_AHEAD, LastIt = GRAINCHUNK_CHUNK_LAST,
          MayNot = GRAINCHUNK_CHUNK_MAY_NOT_RUN;

TEST_F(ExtTest, ChunksReportedAheadAreSureToRunWhereCancellationIsOff) {
  registerAll();
  EXPECT_EQ(runStaticChunk2(LoopStatic),
            (std::vector<int>{0, Ahead, Ahead | LastIt}));
}

TEST_F(ExtTest, ChunksReportedAheadMayNotRunWhereCancellationIsOn) {
  fake_cancellation = 1;
  registerAll();
  EXPECT_EQ(runStaticChunk2(LoopStatic),
            (std::vector<int>{0, Ahead | MayNot, Ahead | MayNot | LastIt}))
      << "the first chunk starts when the init call returns; cancellation "
         "may end the thread's part before the others";
  // A distribute loop cannot be cancelled.
  EXPECT_EQ(runStaticChunk2((ompt_work_t)ompt_work_distribute),
            (std::vector<int>{0, Ahead, Ahead | LastIt}));
  // Unchunked: one range per thread, at its start. Its last flag is the
  // loop's last iteration, not "the thread's last chunk".
  fake_static_init_hook = staticInitTid1;
  ExtEvents.clear();
  int32_t L = 0, Lo = 0, Up = 9, St = 1;
  __kmpc_for_static_init_4(nullptr, 0, 34, &L, &Lo, &Up, &St, 1, 4);
  EXPECT_EQ(chunkFlags(), (std::vector<int>{0}));
}

TEST_F(ExtTest, InstrumentedStaticChunksAreTimedFromThePreviousChunksEnd) {
  registerAll();
  fake_static_init_hook = staticInitTid0;
  ASSERT_EQ(__kmpc_should_callback_per_chunk(nullptr), 3);
  int32_t Last = 0, Lo = 0, Up = 9, St = 1;
  __kmpc_for_static_init_4(nullptr, 0, 33, &Last, &Lo, &Up, &St, 1, 4);
  ASSERT_EQ(ExtEvents.size(), 1u) << "the plugin's calls report the chunks";
  __kmpc_for_static_chunk_4(nullptr, 0, 0, 0, 3);
  __kmpc_for_static_chunk_end(nullptr, 0);
  FakeClock += 100; // the program steps to its next chunk
  __kmpc_for_static_chunk_4(nullptr, 0, 1, 8, 9);
  __kmpc_for_static_chunk_end(nullptr, 0);
  ASSERT_EQ(ExtEvents.size(), 3u);
  EXPECT_EQ(ExtEvents[1].Lo, 0);
  EXPECT_EQ(ExtEvents[1].A, 0);
  EXPECT_GT(ExtEvents[1].Dur, 0);
  EXPECT_EQ(ExtEvents[2].Lo, 8);
  EXPECT_EQ(ExtEvents[2].A, GRAINCHUNK_CHUNK_LAST)
      << "the plugin's flag: the loop's last iteration; never ahead";
  EXPECT_EQ(ExtEvents[2].Dur, 101) << "from the end call to the chunk call";
}

// libomp's part in a dynamic loop: chunks [0, 2], [3, 4] (last), then the
// end of the loop with its work end event.
int NextCalls;
int dispatchNext(int32_t *Last, int32_t *Lb, int32_t *Ub, int32_t *,
                 const void *Ra) {
  FakeClock += 5; // the runtime's own work
  switch (NextCalls++) {
  case 0:
    *Lb = 0, *Ub = 2, *Last = 0;
    return 1;
  case 1:
    *Lb = 3, *Ub = 4, *Last = 1;
    return 1;
  default:
    rtWork()((ompt_work_t)11, ompt_scope_end, &LoopPd, &LoopTd, 0, Ra);
    return 0;
  }
}

void dispatchInit(int32_t, int32_t, int32_t, int32_t, int32_t, const void *Ra) {
  rtWork()((ompt_work_t)11, ompt_scope_begin, &LoopPd, &LoopTd, 0, Ra);
}

TEST_F(ExtTest, DispatchedChunksAreTimedOverTheRuntimeCall) {
  registerAll();
  NextCalls = 0;
  fake_dispatch_init_hook = dispatchInit;
  fake_dispatch_next_hook = dispatchNext;
  // schedule(nonmonotonic: dynamic, 3) over [0, 4], a signed loop.
  __kmpc_dispatch_init_4(nullptr, 0, 35 | (1 << 30), 0, 4, 1, 3);
  ASSERT_EQ(ExtEvents.size(), 1u);
  EXPECT_EQ(ExtEvents[0].A, ext_loop_sched_dynamic * 10 + ompt_scope_begin);
  EXPECT_EQ(ExtEvents[0].B, 1);
  EXPECT_EQ(ExtEvents[0].Step, 1);
  int32_t Last = 0, Lb = 0, Ub = 0, St = 0;
  EXPECT_EQ(__kmpc_dispatch_next_4(nullptr, 0, &Last, &Lb, &Ub, &St), 1);
  EXPECT_EQ(__kmpc_dispatch_next_4(nullptr, 0, &Last, &Lb, &Ub, &St), 1);
  EXPECT_EQ(Last, 1);
  EXPECT_EQ(__kmpc_dispatch_next_4(nullptr, 0, &Last, &Lb, &Ub, &St), 0);
  ASSERT_EQ(ExtEvents.size(), 4u);
  EXPECT_EQ(ExtEvents[1].Lo, 0);
  EXPECT_EQ(ExtEvents[1].Hi, 2);
  EXPECT_EQ(ExtEvents[1].A, 0);
  EXPECT_EQ(ExtEvents[1].Dur, 6) << "the runtime's work and the clock call";
  EXPECT_EQ(ExtEvents[2].Lo, 3);
  EXPECT_EQ(ExtEvents[2].Hi, 4);
  EXPECT_EQ(ExtEvents[2].A, GRAINCHUNK_CHUNK_LAST)
      << "the runtime's last-chunk flag";
  EXPECT_EQ(ExtEvents[3].A, ext_loop_sched_dynamic * 10 + ompt_scope_end);
  // The runtime's work end came from inside the library: the tool gets the
  // program's call site.
  EXPECT_FALSE(inShim(ExtEvents[3].Ra));
  fake_dispatch_init_hook = nullptr;
}

TEST_F(ExtTest, TaskCreationFollowsTheStandardEventWithItsMakingTime) {
  ASSERT_EQ(set(ompt_callback_task_create, (ompt_callback_t)onStdTaskCreate),
            ompt_set_always);
  // Without event 84 the tool's own callback is registered directly.
  EXPECT_EQ(RtCallbacks[ompt_callback_task_create],
            (ompt_callback_t)onStdTaskCreate);
  registerAll();
  ompt_callback_t Cb = nullptr;
  EXPECT_EQ(Get(ompt_callback_task_create, &Cb), 1);
  EXPECT_EQ(Cb, (ompt_callback_t)onStdTaskCreate);
  auto Create =
      (ompt_callback_task_create_t)RtCallbacks[ompt_callback_task_create];
  ASSERT_NE(Create, (ompt_callback_task_create_t)onStdTaskCreate);
  ompt_data_t Parent{}, Task{};
  int Before = fake_task_allocs;
  EXPECT_NE(__kmpc_omp_task_alloc(nullptr, 0, 1, 64, 8, nullptr), nullptr);
  EXPECT_EQ(fake_task_allocs, Before + 1);
  FakeClock += 10; // the program fills in the task
  Create(&Parent, nullptr, &Task, ompt_task_explicit, 1, &Task);
  ASSERT_EQ(StdCreates, 1);
  ASSERT_EQ(ExtEvents.size(), 1u);
  EXPECT_EQ(ExtEvents[0].What, 'T');
  EXPECT_EQ(ExtEvents[0].Lo, 1) << "after the standard event";
  EXPECT_EQ(ExtEvents[0].Td, &Task);
  EXPECT_EQ(ExtEvents[0].B, 1) << "has_dependences";
  EXPECT_EQ(ExtEvents[0].Dur, 11);
  // The initial task is no explicit task.
  Create(nullptr, nullptr, &Task, ompt_task_initial, 0, nullptr);
  EXPECT_EQ(ExtEvents.size(), 1u);
  EXPECT_EQ(StdCreates, 2);
}

} // namespace
