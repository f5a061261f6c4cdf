//===- next_tool_test.cpp - The shim chains to a tool linked after it
//------===//
//
// This test binary links libgrainchunk-rt first and the accepting fake tool
// second, so the tool's ompt_start_tool is the next one in the process: the
// shim must try it before OMP_TOOL_LIBRARIES, as libomp would.
//
// Run: build/test/unit/next_tool_unittest (ctest runs it as "unit-next-tool").
//===----------------------------------------------------------------------===//

#include "fake_tool.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <omp-tools.h>

extern "C" void grainchunk_testing_reset(void);

namespace {

int rtSetCallback(ompt_callbacks_t, ompt_callback_t) { return ompt_set_always; }

ompt_interface_fn_t rtLookup(const char *Name) {
  return std::string(Name) == "ompt_set_callback"
             ? (ompt_interface_fn_t)rtSetCallback
             : nullptr;
}

TEST(NextTool, LinkedToolIsFoundBeforeToolLibraries) {
  grainchunk_testing_reset();
  setenv("FAKE_TOOL_CALLBACKS", "d", 1);
  setenv("OMP_TOOL_LIBRARIES", "/nonexistent/libnothing.so", 1);
  unsetenv("OMP_TOOL");
  ompt_start_tool_result_t *R = ompt_start_tool(202011, "fake runtime");
  ASSERT_NE(R, nullptr);
  EXPECT_EQ(fake_tool_state()->started, 1);
  EXPECT_EQ(R->initialize(rtLookup, 0, &R->tool_data), 1);
  EXPECT_EQ(fake_tool_state()->initialized, 1);
  EXPECT_EQ(fake_tool_state()->dispatch_answer, ompt_set_always);
  EXPECT_EQ(__kmpc_should_callback_per_chunk(nullptr), GRAINCHUNK_WANT_CHUNKS);
}

} // namespace
