#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# Real-world drop-in check: Debian's ImageMagick, built twice from the same
# source (`apt-get source imagemagick`) with clang-22 and OpenMP on, once
# stock and once with grainchunk added through CC/CFLAGS and LDFLAGS only.
# Then:
#   1. `make check` in both trees: every test that passes stock must pass
#      with grainchunk;
#   2. a few OpenMP-heavy `convert` runs in both builds, with the output
#      bytes compared;
#   3. one `convert` under an unmodified OMPT tool (examples/
#      chunk_count_tool.c), stock vs grainchunk, to show the chunks of its
#      static loops arriving;
#   4. counts: loops instrumented and left alone (the plugin's remarks, saved
#      with -fsave-optimization-record: libtool takes -Rpass=... for a run
#      path), and static-loop runtime calls in the stock build (from its IR).
# Takes long (two full builds and two `make check` runs), so it is not part of
# scripts/test.sh. Work tree: build/imagemagick (GRAINCHUNK_IM_DIR).
#   bash scripts/imagemagick.sh            # everything
#   bash scripts/imagemagick.sh fetch      # only get the source and tools
#   bash scripts/imagemagick.sh results    # renders, tool runs and figures
#   bash scripts/imagemagick.sh report     # only re-print the figures
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
apt_who=imagemagick
# shellcheck source=apt-lib.sh
source "$root/scripts/apt-lib.sh"
V=22
cc=/usr/lib/llvm-$V/bin/clang
build="$root/build"
work="${GRAINCHUNK_IM_DIR:-$build/imagemagick}"
jobs=$(nproc)
omplib=/usr/lib/llvm-$V/lib
plugin="$build/clang-plugin/libgrainchunk.so"
shimdir="$build/runtime-shim"
tool="$work/libchunk_count_tool.so"
phase="${1:-all}"

log() { echo "imagemagick: $*"; }

fetch() {
  bash "$root/scripts/install-deps.sh" >/dev/null
  bash "$root/scripts/build.sh" >/dev/null
  apt_enable_deb_src # deb822 .sources and one-line .list files alike
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
    dpkg-dev pkg-config make >/dev/null
  mkdir -p "$work"
  if ! ls -d "$work"/imagemagick-*/ >/dev/null 2>&1; then
    # Newest source version first; a mirror may lack the security suite's.
    local v
    for v in $(apt-cache showsrc imagemagick | sed -n 's/^Version: //p' | sort -rV); do
      log "apt-get source imagemagick=$v"
      if (cd "$work" && apt-get source -qq "imagemagick=$v" >/dev/null 2>&1); then
        break
      fi
    done
    ls -d "$work"/imagemagick-*/ >/dev/null 2>&1 ||
      { log "apt-get source imagemagick failed"; exit 1; }
  fi
  "$cc" -shared -fPIC -O2 "$root/examples/chunk_count_tool.c" -o "$tool"
}

srcdir() { ls -d "$work"/imagemagick-*/ | head -1; }

# configure + make one tree: $1 = stock | grainchunk
build_tree() {
  # ImageMagick 6.9.11 has pointer-type mismatches that newer Clang makes
  # errors by default; both builds get the same flags.
  local kind=$1 dir="$work/$1" ldflags="-L$omplib -Wl,-rpath,$omplib"
  local cflags="-O2 -Wno-error=incompatible-pointer-types -Wno-error=int-conversion"
  if [[ -e $dir/.built && -z ${GRAINCHUNK_IM_REBUILD:-} ]]; then
    log "$kind: already built (GRAINCHUNK_IM_REBUILD=1 rebuilds)"
    return
  fi
  if [[ $kind == grainchunk ]]; then
    # Remarks go to YAML files: libtool would read -Rpass=... as a run path.
    cflags+=" -fplugin=$plugin -fsave-optimization-record"
    cflags+=" -foptimization-record-passes=grainchunk"
    ldflags+=" -L$shimdir -Wl,--push-state,--no-as-needed -lgrainchunk-rt"
    ldflags+=" -Wl,--pop-state -Wl,-rpath,$shimdir"
  else
    # The stock tree also keeps its IR, to count the static loops Clang emits.
    cflags+=" -save-temps=obj"
  fi
  rm -rf "$dir" && mkdir -p "$dir"
  log "configure $kind"
  (cd "$dir" && "$(srcdir)"/configure CC="$cc" CXX="$cc++" CFLAGS="$cflags" \
    CXXFLAGS="$cflags" LDFLAGS="$ldflags" --enable-openmp --disable-shared \
    --disable-docs --without-perl --without-magick-plus-plus --without-x \
    --disable-dependency-tracking >configure.log 2>&1)
  log "make $kind (log: $dir/make.log)"
  (cd "$dir" && make -j"$jobs" >make.log 2>&1)
  nm "$(convert_of "$kind")" | grep '__kmpc_fork_call' >/dev/null ||
    { log "$kind: convert has no OpenMP parallel regions: configure did not turn OpenMP on"; exit 1; }
  touch "$dir/.built"
}

check_tree() {
  local kind=$1 dir="$work/$1"
  log "make check $kind (log: $dir/check.log)"
  (cd "$dir" && make -j"$jobs" -k check >check.log 2>&1) || true
  grep -E '^(PASS|FAIL|XFAIL|XPASS|SKIP|ERROR): ' "$dir/check.log" | sort >"$dir/check.results"
}

convert_of() { echo "$work/$1/utilities/convert"; }

render() {
  mkdir -p "$work/render"
  local i=0
  while read -r args; do
    i=$((i + 1))
    for kind in stock grainchunk; do
      # shellcheck disable=SC2086
      OMP_NUM_THREADS=4 "$(convert_of $kind)" $args "$work/render/$i.$kind.ppm"
    done
    if cmp -s "$work/render/$i.stock.ppm" "$work/render/$i.grainchunk.ppm"; then
      echo "identical  convert $args"
    else
      echo "DIFFERENT  convert $args"
    fi
  done <<'EOF'
logo: -resize 250% -blur 0x2
rose: -resize 800% -rotate 33 -sharpen 0x1
logo: -charcoal 2 -modulate 110,80
wizard: -resize 300% -emboss 1 -negate
logo: -colorspace Gray -edge 2 -wavelet-denoise 5%
EOF
}

# The chunks an unmodified tool is told about, stock vs grainchunk: most of
# ImageMagick 6's loops are schedule(static), which libomp reports once per
# thread, except in one-thread teams (and ImageMagick uses one thread for
# small images); -wavelet-denoise runs schedule(static, 1) loops.
TOOL_RUNS=("4|logo: -wavelet-denoise 5%" "4|logo: -resize 250% -blur 0x2"
  "1|logo: -resize 250% -blur 0x2")
tool_run() {
  local i=0 run threads args
  for run in "${TOOL_RUNS[@]}"; do
    i=$((i + 1))
    threads=${run%%|*} args=${run#*|}
    for kind in stock grainchunk; do
      # shellcheck disable=SC2086
      OMP_NUM_THREADS=$threads OMP_TOOL_LIBRARIES="$tool" "$(convert_of $kind)" \
        $args "$work/render/tool.$kind.ppm" 2>"$work/tool.$i.$kind.txt"
    done
  done
}

report() {
  local gc="$work/grainchunk"
  local instr missed sites
  instr=$(find "$gc" -name '*.opt.yaml' -exec cat {} + | grep -c '^--- !Passed' || true)
  missed=$(find "$gc" -name '*.opt.yaml' -exec cat {} + | grep -c '^--- !Missed' || true)
  sites=$(find "$work/stock" -name '*.bc' -exec sh -c \
    'for f; do /usr/lib/llvm-'$V'/bin/llvm-dis -o - "$f"; done' sh {} + 2>/dev/null |
    grep -c 'call void @__kmpc_for_static_init_' || true)
  local pass_s pass_g fail_g lost
  pass_s=$(grep -c '^PASS: ' "$work/stock/check.results" || true)
  pass_g=$(grep -c '^PASS: ' "$gc/check.results" || true)
  fail_g=$(grep -c '^FAIL: ' "$gc/check.results" || true)
  lost=$(comm -23 <(grep '^PASS: ' "$work/stock/check.results") \
    <(grep '^PASS: ' "$gc/check.results") | wc -l)
  echo
  echo "ImageMagick $(basename "$(srcdir)" | sed 's/imagemagick-//'), clang-$V $("$cc" --version | head -1 | sed 's/.*version //')"
  echo "static-loop init calls in the stock build's IR:         $sites"
  echo "loops instrumented (remarks, grainchunk build):          $instr"
  echo "OpenMP loops left alone (missed remarks):                $missed"
  echo "make check, stock:      $pass_s passed"
  echo "make check, grainchunk: $pass_g passed, $fail_g failed, $lost passing stock but not here"
  echo "rendered images (stock vs grainchunk bytes):"
  sed 's/^/  /' "$work/render.txt"
  echo "chunks examples/chunk_count_tool.c was told about:     stock  grainchunk"
  local i=0 run
  for run in "${TOOL_RUNS[@]}"; do
    i=$((i + 1))
    printf '  %-50s %10s %10s\n' "convert ${run#*|} (${run%%|*} thr.)" \
      "$(sed -n 's/.*saw \([0-9]*\) loop chunks/\1/p' "$work/tool.$i.stock.txt")" \
      "$(sed -n 's/.*saw \([0-9]*\) loop chunks/\1/p' "$work/tool.$i.grainchunk.txt")"
  done
  [[ $lost == 0 ]] && ! grep -q DIFFERENT "$work/render.txt"
}

case "$phase" in
  all)
    fetch
    build_tree stock
    build_tree grainchunk
    check_tree stock
    check_tree grainchunk
    render | tee "$work/render.txt"
    tool_run
    report
    ;;
  fetch) fetch ;;
  results)  # the trees are built and checked already
    render | tee "$work/render.txt"
    tool_run
    report
    ;;
  report) report ;;
  *) echo "usage: $0 [all|fetch|results|report]" >&2; exit 2 ;;
esac
