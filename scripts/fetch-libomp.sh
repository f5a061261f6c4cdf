#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# Unpacks Debian's libomp-N-dev and the libomp5 runtime it depends on into a
# private prefix, without installing them: libomp-N-dev packages conflict with
# one another (installing one removes the others), clang-N does not. The
# prefix then holds usr/lib/llvm-N/{lib,include} as the packages lay them out;
# point CMake at it with -DGRAINCHUNK_OMP_PREFIX=<prefix>.
#
# usage: fetch-libomp.sh N PREFIX      (root not needed once apt lists exist)
set -euo pipefail
V="$1"
prefix="$2"
stamp="$prefix/.grainchunk-libomp"

# libomp-22-dev ships libomp5-19's runtime: take the dependency from apt.
rt=$(apt-cache depends "libomp-$V-dev" 2>/dev/null |
  sed -n 's/^ *Depends: \(libomp5-[0-9]*\)$/\1/p' | head -1)
if [[ -z "$rt" ]]; then
  apt-get update -qq
  rt=$(apt-cache depends "libomp-$V-dev" |
    sed -n 's/^ *Depends: \(libomp5-[0-9]*\)$/\1/p' | head -1)
fi
want=""
for p in "libomp-$V-dev" "$rt"; do
  want+="$p=$(apt-cache policy "$p" | sed -n 's/^ *Candidate: //p') "
done
if [[ -f "$stamp" && "$(cat "$stamp")" == "$want" ]]; then
  echo "fetch-libomp: $want already in $prefix"
  exit 0
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
chmod 777 "$tmp" # as root, apt-get download writes as user _apt
(cd "$tmp" && apt-get download -q "libomp-$V-dev" "$rt" >/dev/null 2>&1) ||
  (apt-get update -qq && cd "$tmp" && apt-get download -q "libomp-$V-dev" "$rt" >/dev/null)
rm -rf "$prefix"
mkdir -p "$prefix"
for deb in "$tmp"/*.deb; do
  dpkg -x "$deb" "$prefix"
done
echo "$want" >"$stamp"
echo "fetch-libomp: unpacked $want into $prefix"
