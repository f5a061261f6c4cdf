#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# Installs clang-N for each N given (default: every Clang Debian bookworm
# ships: 14 15 16 19 22), builds grainchunk against each into build-N (build/
# for 22) with a private copy of libomp-N-dev, runs the whole test suite
# (ctest: lit codegen + end-to-end, GoogleTest) and prints a pass/fail table.
# The Fortran tests run with flang-N where flang-N is installed: flang-22
# (always installed) and flang-19 (installed only when 19 is asked).
# Installs every toolchain first (a version's suite loads the plugin into
# another Clang). Exits non-zero if any version fails. Logs:
# <build>/test-matrix.log.
set -uo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
versions=("$@")
((${#versions[@]})) || versions=(14 15 16 19 22)

# Each step's output goes to the log; the terminal gets one line per step
# with its time, install-deps' lines (one per package group and quarter of
# apt's progress) and ctest's line per test.
step() { # uses $V and $log; $1: what; $2: the lines of its output to show
  #        (grep -E); the rest: the command
  local what=$1 show=$2 t=$SECONDS
  shift 2
  echo "test-matrix: clang-$V: $what"
  "$@" 2>&1 |
    tee -a "$log" | { grep --line-buffered -E "$show" || true; }
  local r=${PIPESTATUS[0]}
  echo "test-matrix: clang-$V: $what: $( ((r)) && echo FAILED || echo done) ($((SECONDS - t)) s)"
  return "$r"
}

declare -A result detail installed install_secs stage
fail=0
# Every toolchain first: codegen/version-mismatch.test loads the plugin into
# another installed Clang, so on a fresh machine each version's suite finds
# the others already there.
for V in "${versions[@]}"; do
  if [[ "$V" == 22 ]]; then build="$root/build"; else build="$root/build-$V"; fi
  mkdir -p "$build"
  log="$build/test-matrix.log"
  : >"$log"
  start=$SECONDS
  step "install the toolchain" '^' \
    env GRAINCHUNK_LLVM_VERSION="$V" bash "$root/scripts/install-deps.sh"
  installed[$V]=$?
  install_secs[$V]=$((SECONDS - start))
done
for V in "${versions[@]}"; do
  if [[ "$V" == 22 ]]; then build="$root/build"; else build="$root/build-$V"; fi
  log="$build/test-matrix.log"
  echo "test-matrix: clang-$V -> $build (log: $log)"
  start=$((SECONDS - install_secs[$V]))
  # stage: the step that failed (the failure summary names its cause).
  stage[$V]="install the toolchain"
  ((installed[$V] == 0)) && stage[$V]=build &&
    step "build" '^build:' env GRAINCHUNK_LLVM_VERSION="$V" \
      GRAINCHUNK_BUILD_DIR="$build" bash "$root/scripts/build.sh" &&
    stage[$V]=ctest &&
    step "ctest (lit, LLVM's OMPT suite, GoogleTest)" \
      '^ *[0-9]+/[0-9]+ Test +#' ctest --test-dir "$build" --output-on-failure -V
  rc=$?
  secs=$((SECONDS - start))
  clang_v=$(/usr/lib/llvm-"$V"/bin/clang --version 2>/dev/null | head -1 |
    sed -n 's/.*version \([^ ]*\).*/\1/p')
  omp_v=$(sed 's/ /\n/g' "$build/libomp/.grainchunk-libomp" 2>/dev/null |
    sed -n 's/^libomp5-\([0-9]*\)=1:\(.*\)/\2/p')
  # lit's summary as ctest -V prints it ("1:   Passed: 12 (100.00%)").
  passed=$(sed -n 's/^[0-9]*: *Passed *: *\([0-9]*\).*/\1/p' "$log" | tail -1)
  failed=$(sed -n 's/^[0-9]*: *Failed *: *\([0-9]*\).*/\1/p' "$log" | tail -1)
  unsup=$(sed -n 's/^[0-9]*: *Unsupported *: *\([0-9]*\).*/\1/p' "$log" | tail -1)
  ctests=$(sed -n 's/.*tests passed, \([0-9]*\) tests failed out of \([0-9]*\)/\1 \2/p' "$log" | tail -1)
  [[ -n "$ctests" ]] && ctests="$(( ${ctests#* } - ${ctests% *} ))/${ctests#* } passed"
  if ((rc == 0)); then result[$V]=PASS; else result[$V]=FAIL; fail=1; fi
  if ((installed[$V])); then # no clang-N: no version, nothing run
    clang_v="not installed" omp_v="-" ctests="not run"
  fi
  detail[$V]="$(printf '%-13s %-22s %4s %6s %6s  %-18s %5ss' "${clang_v:-?}" \
    "${omp_v:-?}" "${passed:-0}" "${failed:-0}" "${unsup:-0}" \
    "${ctests:-not run}" "$secs")"
done

echo
printf '%-6s %-6s %-13s %-22s %4s %6s %6s  %-18s %6s\n' clang result "version" \
  "libomp runtime" "lit" "failed" "unsup-" "ctest" "time"
printf '%-6s %-6s %-13s %-22s %4s %6s %6s  %-18s %6s\n' "" "" "" "" "pass" "" \
  "ported" "tests" ""
for V in "${versions[@]}"; do
  printf '%-6s %-6s %s\n' "$V" "${result[$V]}" "${detail[$V]}"
done
# The lit tests a version does not run (lit --show-unsupported names them).
for V in "${versions[@]}"; do
  if [[ "$V" == 22 ]]; then b="$root/build"; else b="$root/build-$V"; fi
  # lit -s lists them after "Unsupported Tests (N):", one "  suite :: test"
  # a line; without -s each comes as "UNSUPPORTED: suite :: test (i of n)".
  names=$(awk '/^[0-9]+: Unsupported Tests/ { l = 1; next }
    l && /^[0-9]+:   [^ ]+ :: / { print $4; next } { l = 0 }
    /^[0-9]+: UNSUPPORTED: [^ ]+ :: / { print $5 }' "$b/test-matrix.log" |
    sort -u | paste -sd' ')
  [[ -z "$names" ]] || echo "clang-$V unsupported: $names"
done
# Failures last, so that the end of the output (all a CI summary may keep)
# names, for each failing version, the step that failed and its cause:
# install-deps' error (a package apt lacks, an unsupported version, apt's
# failure), the build's first errors, or the failing tests.
for V in "${versions[@]}"; do
  [[ "${result[$V]}" == PASS ]] && continue
  if [[ "$V" == 22 ]]; then b="$root/build"; else b="$root/build-$V"; fi
  l="$b/test-matrix.log"
  echo "--- clang-$V: FAILED at: ${stage[$V]} (log: $l); last lines of the log:"
  tail -n 12 "$l"
  echo "--- clang-$V: the cause:"
  case "${stage[$V]}" in
    "install the toolchain")
      # install-deps' own lines that say why, and the indented lines of an
      # explanation that follow them (apt-lib's "add this apt source").
      cause=$(awk '/^install-deps: .*(not available|not supported|does not ship|failed|[Ee]rror|E: )/ { p = 1; print; next }
        p && /^(install-deps: |  )/ { print; next } { p = 0 }
        /^E: / { print }' "$l" | head -n 30)
      echo "${cause:-install-deps failed without saying why (see the log)}" ;;
    build)
      grep -E '(^|: )(error|Error|FAILED)|cannot find|not found|CMake Error' "$l" |
        cut -c1-300 | head -n 12 ;;
    ctest)
      # (ctest -V prefixes lit's lines with "N: ", --output-on-failure
      # repeats them without)
      grep -E '^([0-9]+: )?(FAIL|XPASS|UNRESOLVED|TIMEOUT): ' "$l" |
        sed 's/^[0-9]*: //' | awk '!seen[$0]++' | head -n 20
      grep -E '^[0-9]+/[0-9]+ Test +#.*(Failed|Timeout|Not Run)' "$l" | head -n 10 ;;
  esac
done
exit $fail
