#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# The main job: builds grainchunk and examples/imbalance.c twice (stock Clang,
# and Clang + grainchunk), runs both under the same unmodified OMPT tool
# (examples/chunk_count_tool.c), and shows how many static-loop chunks the
# tool is told about in each build.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
V="${GRAINCHUNK_LLVM_VERSION:-22}"
threads="${OMP_NUM_THREADS:-4}"
# What is installed and built is shown one line per step (on a fresh machine
# the installs take minutes); the demo's own output follows.
bash "$root/scripts/install-deps.sh"
t=$SECONDS
echo "demo: building grainchunk (scripts/build.sh)"
bash "$root/scripts/build.sh" >/dev/null
echo "demo: built ($((SECONDS - t)) s)"
echo
build="${GRAINCHUNK_BUILD_DIR:-$root/build}"
cc=/usr/lib/llvm-"$V"/bin/clang
omp="-L/usr/lib/llvm-$V/lib -Wl,-rpath,/usr/lib/llvm-$V/lib"
shim="-L$build/runtime-shim -Wl,--push-state,--no-as-needed -lgrainchunk-rt -Wl,--pop-state -Wl,-rpath,$build/runtime-shim"
out="$build/demo"
mkdir -p "$out"

"$cc" -shared -fPIC -O2 "$root/examples/chunk_count_tool.c" -o "$out/libchunk_count_tool.so"
# -gline-tables-only: grainchunk-graph names loops by source line.
"$cc" -fopenmp -O2 -gline-tables-only $omp "$root/examples/imbalance.c" -o "$out/imbalance.stock"
"$cc" -fopenmp -O2 -gline-tables-only -fplugin="$build/clang-plugin/libgrainchunk.so" -Rpass=grainchunk \
  $omp "$root/examples/imbalance.c" -o "$out/imbalance.grainchunk" $shim 2>"$out/remarks.txt"

run() {
  OMP_NUM_THREADS=$threads OMP_TOOL_LIBRARIES="$out/libchunk_count_tool.so" "$1" 2>"$1.tool" >"$1.out"
}
run "$out/imbalance.stock"
run "$out/imbalance.grainchunk"

count() { sed -n 's/^chunk_count_tool: saw \([0-9]*\) loop chunks$/\1/p' "$1.tool"; }
sched=$(sed -n 's/^static chunks scheduled: //p' "$out/imbalance.stock.out")
same=$(cmp -s "$out/imbalance.stock.out" "$out/imbalance.grainchunk.out" && echo yes || echo NO)

echo "grainchunk demo: examples/imbalance.c, $threads threads, clang-$V, $("$cc" --version | head -1 | sed 's/.*version //')"
echo "loops instrumented by the plugin: $(grep -c 'loop instrumented' "$out/remarks.txt")"
echo
printf '%-44s %12s %12s\n' "" "stock" "grainchunk"
printf '%-44s %12s %12s\n' "static chunks the program executed" "$sched" "$sched"
printf '%-44s %12s %12s\n' "chunks the OMPT tool was told about" "$(count "$out/imbalance.stock")" "$(count "$out/imbalance.grainchunk")"
printf '%-44s %12s %12s\n' "program output identical" "" "$same"
echo
echo "What the tool saw per thread, stock build:"
grep 'thread ' "$out/imbalance.stock.tool" | sed 's/^chunk_count_tool:  /  /'
echo "What the tool saw per thread, grainchunk build:"
grep 'thread ' "$out/imbalance.grainchunk.tool" | sed 's/^chunk_count_tool:  /  /'

# The same two programs under grainchunk-graph (2 threads, one per core of
# the machine the README's figures come from): what a grain-graph tool can
# draw from each build. --update-docs copies the rendered timelines into
# docs/ (the README shows them). The programs run from a directory of their
# own: the report names the program by its path (its title, on the
# screenshot in docs/), which is not to be the build tree's.
graph="$build/tools/grainchunk-graph"
neutral="$(mktemp -d "${TMPDIR:-/tmp}/grainchunk-demo.XXXXXX")"
trap 'rm -rf "$neutral"' EXIT
cp "$out/imbalance.stock" "$out/imbalance.grainchunk" "$neutral/"
for kind in stock grainchunk; do
  (cd "$neutral" && OMP_NUM_THREADS=2 "$graph" -o "$out/graph.$kind" -- "./imbalance.$kind") \
    >"$out/graph.$kind.out" 2>"$out/graph.$kind.summary"
  cmp -s "$out/imbalance.stock.out" "$out/graph.$kind.out" ||
    { echo "demo: the program's output changed under grainchunk-graph ($kind)" >&2; exit 1; }
  rsvg-convert "$out/graph.$kind/timeline.svg" -o "$out/graph.$kind/timeline.png"
done
echo
rel() { echo "${1#"$root"/}"; } # paths in the tree, relative to it
for kind in stock grainchunk; do
  echo "grainchunk-graph -o $(rel "$out")/graph.$kind -- ./imbalance.$kind (2 threads):"
  sed 's/^/  /' "$out/graph.$kind.summary"
done
echo
echo "timelines: $(rel "$out")/graph.stock/timeline.png $(rel "$out")/graph.grainchunk/timeline.png"
if [[ "${1:-}" == --update-docs ]]; then
  cp "$out/graph.stock/timeline.png" "$root/docs/timeline-stock.png"
  cp "$out/graph.grainchunk/timeline.png" "$root/docs/timeline-grainchunk.png"
  echo "copied into docs/timeline-stock.png and docs/timeline-grainchunk.png"
  # The report's screenshot, taken in headless Chromium by the report test's
  # checker, which checks the page on the way: what the demo's page must
  # show (test/graph/check_report.py demo).
  if [[ -x /usr/bin/chromium ]]; then
    /usr/bin/python3 "$root/test/graph/check_report.py" demo \
      "$out/graph.grainchunk" "$root/docs/report-demo.png" >"$out/report-check.txt" ||
      { echo "demo: the report's check failed: $(tail -1 "$out/report-check.txt")" >&2; exit 1; }
    echo "copied the report's screenshot into docs/report-demo.png"
  fi
fi
# Last: the page to open first (grainchunk-graph writes it by default).
echo
echo "report: $(rel "$out")/graph.grainchunk/report.html (open it in a browser: file://$out/graph.grainchunk/report.html)"
