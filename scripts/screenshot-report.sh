#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# screenshot-report.sh: a PNG of a grainchunk-graph report.html as a browser
# shows it on opening, taken in Debian's headless Chromium (a fresh profile,
# no network: the page loads nothing).
#
#   bash scripts/screenshot-report.sh REPORT.html OUT.png [WIDTHxHEIGHT]
#
# WIDTHxHEIGHT is the window (default 1400x1000); a taller window takes more
# of the page (the page is as wide as the window). With pngquant installed
# the PNG is quantized to 256 colours when that makes it smaller. Prints
# the PNG's path, size in pixels and bytes.
set -euo pipefail

usage() {
  echo "usage: bash scripts/screenshot-report.sh REPORT.html OUT.png [WIDTHxHEIGHT]" >&2
  exit 2
}
die() { echo "screenshot-report: $*" >&2; exit 1; }

[[ $# -eq 2 || $# -eq 3 ]] || usage
report=$1 png=$2 size=${3:-1400x1000}
[[ -f "$report" && -r "$report" ]] ||
  die "$report: no such readable file (give grainchunk-graph's OUT/report.html)"
[[ "$report" == *.html ]] || die "$report: not an .html file (give grainchunk-graph's OUT/report.html)"
[[ "$png" == *.png ]] || die "$png: the output must end in .png"
[[ -d "$(dirname -- "$png")" ]] || die "$(dirname -- "$png"): no such directory for $png"
[[ "$size" =~ ^([0-9]+)x([0-9]+)$ ]] ||
  die "$size: the size must be WIDTHxHEIGHT in pixels, e.g. 1400x1000"
width=${BASH_REMATCH[1]} height=${BASH_REMATCH[2]}
((width >= 200 && width <= 8000 && height >= 200 && height <= 16000)) ||
  die "$size: width must be 200 to 8000 and height 200 to 16000 pixels"
chromium=${CHROMIUM:-/usr/bin/chromium}
[[ -x "$chromium" ]] || die "$chromium not found: apt-get install chromium (Debian's package)"

abs_report=$(realpath -- "$report")
abs_png=$(realpath -- "$png")
profile=$(mktemp -d /tmp/gc-shot-XXXXXX)
trap 'rm -rf "$profile"' EXIT
rm -f -- "$abs_png"
# --screenshot writes the window once the page has loaded; the report draws
# on load, so the timeline and the graph are in it.
if ! timeout 120 "$chromium" --headless --no-sandbox --disable-gpu \
  --hide-scrollbars --no-first-run --disable-background-networking \
  --disable-component-update --disable-sync --user-data-dir="$profile" \
  --window-size="$width,$height" --screenshot="$abs_png" \
  "file://$abs_report" >"$profile/log" 2>&1; then
  die "chromium failed: $(tail -3 "$profile/log")"
fi
[[ -s "$abs_png" ]] || die "chromium wrote no $png: $(tail -3 "$profile/log")"
# The PNG's own size, from its header (bytes 16-23: width, height).
read -r w h < <(od -An -tu1 -j16 -N8 "$abs_png" |
  awk '{ print $1*16777216 + $2*65536 + $3*256 + $4, $5*16777216 + $6*65536 + $7*256 + $8 }')
[[ "$w" == "$width" && "$h" == "$height" ]] ||
  die "$png is ${w}x${h}, not the window's ${width}x${height}"
if command -v pngquant >/dev/null; then
  pngquant --force --skip-if-larger --output "$abs_png" -- "$abs_png" || true
fi
echo "$png: ${w}x${h}, $(stat -c %s "$abs_png") bytes"
