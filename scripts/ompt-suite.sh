#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# Runs LLVM's own OMPT test suite (openmp/runtime/test/ompt of the libomp
# under test) built by stock Clang, and built with the grainchunk plugin and
# linked with libgrainchunk-rt, each checked by its own FileCheck lines, and
# prints the pass counts. The tests define their tool (callback.h) in the
# executable, as upstream does.
#
# usage: scripts/ompt-suite.sh [N] [stock|grainchunk|both] [lit test path under ompt/]
#   N: Clang version (default 22; its runtime is libomp 19, so the tests of
#   llvm-toolchain-19 run). Needs a grainchunk build for clang-N
#   (scripts/build.sh). The sources come from Debian's llvm-toolchain-R source
#   package (deb-src is enabled for it, scripts/apt-lib.sh); only openmp/runtime/test and the one header its tests include from
#   src/ are unpacked.
# Exit status: nonzero if a test that passes stock fails with grainchunk (or,
# in a single mode, if any test fails).
set -uo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
apt_who=ompt-suite
# shellcheck source=apt-lib.sh
source "$root/scripts/apt-lib.sh"
V="${1:-22}"
mode="${2:-both}"
sub="${3:-}"
if [[ "$V" == 22 ]]; then build="$root/build"; R=19; else build="$root/build-$V"; R=$V; fi
build="${GRAINCHUNK_BUILD_DIR:-$build}" # ctest passes its build directory
[[ -f "$build/runtime-shim/libgrainchunk-rt.so" ]] ||
  { echo "ompt-suite: no grainchunk build in $build (run scripts/build.sh)" >&2; exit 2; }
work="$build/ompt-suite"
src="$work/src"
mkdir -p "$src"

# 1. The test sources of the libomp under test.
if ! ls "$src"/llvm-toolchain-"$R"_*/openmp/runtime/src/kmp_platform.h >/dev/null 2>&1; then
  if ! ls "$src"/llvm-toolchain-"$R"_*.orig.tar.xz >/dev/null 2>&1; then
    # deb-src, in deb822 .sources files and one-line .list files alike
    apt_enable_deb_src ||
      { echo "ompt-suite: could not enable deb-src in the apt sources" >&2; exit 2; }
    echo "ompt-suite: apt-get source llvm-toolchain-$R (the OMPT tests' sources)"
    (cd "$src" && apt-get source --download-only -qq "llvm-toolchain-$R") ||
      { echo "ompt-suite: apt-get source llvm-toolchain-$R failed (is there a" \
          "deb-src source for Debian $apt_codename in /etc/apt?)" >&2; exit 2; }
  fi
  tar -xJf "$(ls "$src"/llvm-toolchain-"$R"_*.orig.tar.xz | head -1)" -C "$src" \
    --wildcards '*/openmp/runtime/test/*' '*/openmp/runtime/src/kmp_platform.h' ||
    { echo "ompt-suite: cannot unpack the tests" >&2; exit 2; }
fi
tests=$(ls -d "$src"/llvm-toolchain-"$R"_*/openmp/runtime/test | head -1)

# 2. The toolchain and libomp this grainchunk build uses.
cache() { sed -n "s/^$1:[A-Z]*=//p" "$build/CMakeCache.txt" | head -1; }
cc=$(cache CMAKE_C_COMPILER)
# lit as the build's own lit test runs it (for Clang < 22, llvm-N-dev's lit.py)
lit=$(sed -n 's/^add_test(\[=\[lit\]=\] "[^"]*" "\([^"]*\)".*/\1/p' \
  "$build/test/CTestTestfile.cmake" | head -1)
filecheck=$(cache GRAINCHUNK_FILECHECK)
ompinc=$(cache GRAINCHUNK_OMPT_INCLUDE)
omplib=$(dirname "$(find "$build/libomp" -name 'libomp.so.5' | head -1)")
plugin="$build/clang-plugin/libgrainchunk.so"
shimdir="$build/runtime-shim"

run_mode() { # $1: stock | grainchunk
  local m=$1 dir="$work/$1" extra="-Wl,-rpath,$omplib"
  if [[ $m == grainchunk ]]; then
    extra+=" -fplugin=$plugin -L$shimdir -Wl,--push-state,--no-as-needed"
    extra+=" -lgrainchunk-rt -Wl,--pop-state -Wl,-rpath,$shimdir"
  fi
  rm -rf "$dir" && mkdir -p "$dir/out"
  cp -r "$tests" "$dir/test"
  mkdir -p "$dir/src" && cp "$tests/../src/kmp_platform.h" "$dir/src/" # callback.h
  # lit >= 20 rejects %T (the test's output directory), which the loadtool
  # tests of LLVM <= 19 use: in the copies it becomes a directory of its own.
  if python3 "$lit" --version 2>&1 | grep -qE 'lit (2[0-9]|[3-9][0-9])\.'; then
    sed -i 's|%T/tool.so|%t.d/tool.so|' "$dir/test/lit.cfg" # %preload-tool
    for f in $(grep -rl '%T' "$dir/test/ompt"); do
      sed -i -e 's/%T/%t.d/g' -e '1i // RUN: mkdir -p %t.d' "$f"
    done
  fi
  cat >"$dir/test/lit.site.cfg" <<CFG
config.test_c_compiler = "$cc"
config.test_cxx_compiler = "${cc}++"
config.test_compiler_features = ["clang"]
config.test_compiler_has_omp_h = True
config.test_filecheck = "$filecheck"
config.test_not = "$(dirname "$filecheck")/not"
config.test_openmp_flags = "-fopenmp"
config.test_extra_flags = "$extra"
config.libomp_obj_root = "$dir/out"
config.library_dir = "$omplib"
config.omp_header_directory = "$ompinc"
config.operating_system = "Linux"
config.hwloc_library_dir = ""
config.using_hwloc = False
config.has_ompt = True
config.has_ompx_taskgraph = False
config.has_libm = True
config.has_libatomic = False
config.is_standalone_build = False
config.has_omit_frame_pointer_flag = True
config.target_arch = "x86_64"
# teams/distribute_dispatch.c asks for 4 teams; libomp caps teams at the
# number of cores unless told otherwise.
config.environment["KMP_TEAMS_THREAD_LIMIT"] = "4"
lit_config.load_config(config, "$dir/test/lit.cfg")
CFG
  python3 "$lit" -v -j2 "$dir/test/ompt/$sub" >"$dir/lit.log" 2>&1
  sed -n 's/^\(PASS\|FAIL\|XFAIL\|XPASS\|UNSUPPORTED\): [^:]*:: \(.*\) (.*/\1 \2/p' \
    "$dir/lit.log" | sort -k2 >"$dir/results"
}

modes=("$mode")
[[ $mode == both ]] && modes=(stock grainchunk)
for m in "${modes[@]}"; do run_mode "$m"; done

summary() { # $1: mode
  local r="$work/$1/results"
  printf '%-11s %4d passed  %3d failed  %3d xfail  %3d unsupported  (of %d)\n' "$1" \
    "$(grep -c '^PASS ' "$r")" "$(grep -c '^FAIL ' "$r")" \
    "$(grep -c '^XFAIL ' "$r")" "$(grep -c '^UNSUPPORTED ' "$r")" \
    "$(wc -l <"$r")"
}
echo "LLVM OMPT tests of llvm-toolchain-$R ($tests), clang-$V:"
for m in "${modes[@]}"; do summary "$m"; done
rc=0
for m in "${modes[@]}"; do
  if [[ ! -s "$work/$m/results" ]]; then
    echo "ompt-suite: no test ran in mode $m; see $work/$m/lit.log"; rc=2
  fi
done
if ((rc)); then
  exit $rc
elif [[ $mode == both ]]; then
  # Every test that passes stock must pass with grainchunk.
  lost=$(join -j2 <(grep '^PASS ' "$work/stock/results") \
    <(grep -v '^PASS ' "$work/grainchunk/results") | awk '{print $1}')
  if [[ -n "$lost" ]]; then
    echo "passes stock, not with grainchunk:"; echo "$lost"; rc=1
  else
    echo "every test that passes stock passes with grainchunk"
  fi
  grep '^FAIL ' "$work/stock/results" | sed 's/^/stock: /'
else
  grep '^FAIL ' "$work/$mode/results" && rc=1
fi
exit $rc
