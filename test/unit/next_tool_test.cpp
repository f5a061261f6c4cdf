//===- next_tool_test.cpp - The shim chains to a tool linked after it -----===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// This test binary links libgrainchunk-rt, the fake runtime and the
// accepting fake tool, in that order: the runtime's own weak ompt_start_tool
// comes first and finds the tool's with RTLD_NEXT, before
// OMP_TOOL_LIBRARIES, as libomp linked before a tool does. The shim's hook on
// the runtime's dlsym must leave that RTLD_NEXT lookup relative to the
// runtime.
//
// Run: build/test/unit/next_tool_unittest (ctest runs it as "unit-next-tool").
//===----------------------------------------------------------------------===//

#include "fake_runtime.h"
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
  ompt_start_tool_result_t *R = fake_runtime_search();
  ASSERT_NE(R, nullptr);
  EXPECT_EQ(fake_tool_state()->started, 1);
  EXPECT_EQ(R->initialize(rtLookup, 0, &R->tool_data), 1);
  EXPECT_EQ(fake_tool_state()->initialized, 1);
  EXPECT_EQ(fake_tool_state()->dispatch_answer, ompt_set_always);
  EXPECT_EQ(__kmpc_should_callback_per_chunk(nullptr), GRAINCHUNK_WANT_CHUNKS);
}

} // namespace
