# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# grainchunk-otf2: the OTF2 trace writer of grainchunk-graph (write/Otf2Writer.cpp),
# a static library over the OTF2 library (Debian: libopen-trace-format2-dev,
# found through pkg-config's otf2.pc, else through otf2-config of a Score-P
# style install). Included from tools/CMakeLists.txt; paths are relative to
# this file, so it can be included from anywhere.
find_package(PkgConfig QUIET)
if(PKG_CONFIG_FOUND)
  pkg_check_modules(GRAINCHUNK_OTF2 QUIET IMPORTED_TARGET otf2)
endif()
if(TARGET PkgConfig::GRAINCHUNK_OTF2)
  set(_gc_otf2_lib PkgConfig::GRAINCHUNK_OTF2)
  set(_gc_otf2_how "pkg-config otf2 ${GRAINCHUNK_OTF2_VERSION}")
else()
  find_program(GRAINCHUNK_OTF2_CONFIG otf2-config)
  if(NOT GRAINCHUNK_OTF2_CONFIG)
    message(FATAL_ERROR "OTF2 not found (neither pkg-config's otf2 nor "
      "otf2-config): install libopen-trace-format2-dev "
      "(scripts/install-deps.sh), or put an OTF2 install's bin/ on PATH")
  endif()
  foreach(_gc_flag cflags ldflags libs)
    execute_process(COMMAND ${GRAINCHUNK_OTF2_CONFIG} --${_gc_flag}
      OUTPUT_VARIABLE _gc_out OUTPUT_STRIP_TRAILING_WHITESPACE
      COMMAND_ERROR_IS_FATAL ANY)
    separate_arguments(_gc_otf2_${_gc_flag} UNIX_COMMAND "${_gc_out}")
  endforeach()
  add_library(grainchunk-otf2-lib INTERFACE)
  target_compile_options(grainchunk-otf2-lib INTERFACE ${_gc_otf2_cflags})
  target_link_options(grainchunk-otf2-lib INTERFACE ${_gc_otf2_ldflags})
  target_link_libraries(grainchunk-otf2-lib INTERFACE ${_gc_otf2_libs})
  set(_gc_otf2_lib grainchunk-otf2-lib)
  set(_gc_otf2_how "${GRAINCHUNK_OTF2_CONFIG}")
endif()
message(STATUS "grainchunk: OTF2 from ${_gc_otf2_how}")

add_library(grainchunk-otf2 STATIC ${CMAKE_CURRENT_LIST_DIR}/write/Otf2Writer.cpp)
target_include_directories(grainchunk-otf2 PUBLIC ${CMAKE_CURRENT_LIST_DIR}/write)
target_compile_options(grainchunk-otf2 PRIVATE -Wall -Wextra -O2)
set_target_properties(grainchunk-otf2 PROPERTIES POSITION_INDEPENDENT_CODE ON)
target_link_libraries(grainchunk-otf2 PUBLIC ${_gc_otf2_lib})
