#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# Installs what grainchunk needs to build and test on Debian bookworm (root).
# GRAINCHUNK_LLVM_VERSION=N picks clang-N (default 22). clang-N, llvm-N-dev
# and llvm-N-tools of several N install side by side; libomp-N-dev packages
# conflict with one another, so only the default's (22, which the demo and
# the README's plain link lines use) is installed: the build and the tests
# use a private copy of libomp-N-dev (scripts/fetch-libomp.sh) for every N.
# Prints one line per step (package group, with its time and apt's progress
# by quarters); if a package is not in the apt sources (clang-22 on a root
# without bookworm-security), says exactly which source to add and fails.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
apt_who=install-deps
# shellcheck source=apt-lib.sh
source "$root/scripts/apt-lib.sh"
V="${GRAINCHUNK_LLVM_VERSION:-22}"
# pkgconf, dpkg-dev, file, gcc and gfortran: the install and package tests
# (gcc and gfortran are the other compilers find_package(grainchunk) must
# refuse).
build_tools=(cmake ninja-build python3 libgtest-dev binutils
             pkgconf dpkg-dev file gcc gfortran)
# The Clangs Debian bookworm ships (22 from bookworm-security): the ones
# grainchunk is built and tested with (scripts/test-matrix.sh).
supported=(14 15 16 19 22)
if [[ " ${supported[*]} " != *" $V "* ]]; then
  echo "install-deps: clang-$V is not supported: the supported Clangs are" \
    "those Debian bookworm ships, ${supported[*]}" >&2
  exit 1
fi
updated=0
# Sanitizer runtimes (the build-mode tests link -fsanitize=undefined): in
# libclang-rt-N-dev for 14, 16, 19 and 22, which clang-N only recommends (a
# fresh machine installing without recommends lacks the UBSan runtime), but
# bookworm has no libclang-rt-15-dev: clang-15's runtimes are still in
# libclang-common-15-dev (a dependency of clang-15); apt_clang_rt_package
# picks by what apt has. When apt does not know libclang-rt-N-dev and
# libclang-common-N-dev has not installed the runtimes already, the lists
# are refreshed first (a machine that never ran apt-get update knows no
# package).
if ! apt_available libclang-rt-"$V"-dev &&
  ! dpkg -L libclang-common-"$V"-dev 2>/dev/null |
  grep -q 'libclang_rt\.ubsan_standalone'; then
  apt_update
  updated=1
fi
rt_package=$(apt_clang_rt_package "$V")
toolchain=(clang-"$V" libclang-"$V"-dev llvm-"$V"-dev llvm-"$V"-tools
           "$rt_package")
if [[ "$V" == 22 ]]; then
  toolchain+=(libomp-22-dev flang-22) # flang-22: the Fortran tests
fi
# flang-19: the Fortran tests of the clang-19 build (scripts/test-matrix.sh
# 19); only when 19 is asked, CI (22 and 14) does not pay for it.
if [[ "$V" == 19 ]]; then
  toolchain+=(flang-19)
fi
# grainchunk-graph's tests: rsvg-convert renders the timeline SVG to PNG
# (librsvg2-bin, the renderer GNOME uses), python3-networkx reads the GraphML
# back, python3-pil reads the PNG, python3-pandas reads grains.csv as a data
# scientist would; Open MPI (openmpi-bin, libopenmpi-dev) runs the hybrid
# MPI + OpenMP tests (mpirun, mpi.h). grainchunk-graph itself is C++
# (binutils: addr2line, c++filt name the loops).
graph_tools=(librsvg2-bin python3-networkx python3-pil python3-pandas
             openmpi-bin libopenmpi-dev)
# report.html is tested in a real browser: Debian's chromium, headless,
# driven over the DevTools protocol from python3 (python3-websocket).
browser=(chromium python3-websocket)
# OTF2: grainchunk-graph writes trace.otf2 with Debian's OTF2 library (built
# against libopen-trace-format2-dev); its tests read it back with otf2-print
# (otf2-tools).
otf2=(libopen-trace-format2-dev otf2-tools)

missing=$(apt_missing "${build_tools[@]}" "${toolchain[@]}" "${graph_tools[@]}" \
  "${otf2[@]}" "${browser[@]}")
if [[ -n $missing ]]; then
  start=$SECONDS
  echo "install-deps: clang-$V: to install: $missing"
  ((updated)) || apt_update
  # shellcheck disable=SC2086 # a list of package names
  apt_require_available $missing
  apt_install_group "build tools" "${build_tools[@]}"
  apt_install_group "clang-$V toolchain" "${toolchain[@]}"
  apt_install_group "grainchunk-graph test tools" "${graph_tools[@]}"
  apt_install_group "OTF2" "${otf2[@]}"
  apt_install_group "browser for the report test" "${browser[@]}"
  echo "install-deps: installed in $((SECONDS - start)) s"
fi
echo "install-deps: clang-$V toolchain ready"
