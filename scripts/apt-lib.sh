#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# Shell functions the scripts source for apt on Debian: install package
# groups with one progress line per step, say exactly which apt source to add
# when a package is not available (clang-22 comes from bookworm-security,
# which debootstrap does not configure), and enable deb-src in both formats
# of apt sources (deb822 .sources files and one-line .list files).
# Usage: source scripts/apt-lib.sh; every function prints with the prefix
# "$apt_who: " (the calling script's name).

apt_who="${apt_who:-$(basename "${BASH_SOURCE[1]:-$0}" .sh)}"
apt_dir="${apt_dir:-/etc/apt}" # the tests point it at a copy
apt_codename=$(. /etc/os-release 2>/dev/null; echo "${VERSION_CODENAME:-bookworm}")

# apt_missing PKG...: prints the packages not installed (one line, spaces).
apt_missing() {
  local p out=()
  for p in "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" ||
      out+=("$p")
  done
  echo "${out[*]}"
}

# apt_available PKG: true if apt has a candidate version for PKG.
apt_available() {
  local c
  c=$(apt-cache policy "$1" 2>/dev/null | sed -n 's/^ *Candidate: //p')
  [[ -n "$c" && "$c" != "(none)" ]]
}

# apt_clang_rt_package N: the package that holds clang-N's compiler-rt
# runtimes (the sanitizers): libclang-rt-N-dev where apt has one (Debian
# bookworm: 14, 16, 19, 22), else libclang-common-N-dev (bookworm's clang-15
# has no libclang-rt-15-dev: its runtimes are still in libclang-common-15-dev).
apt_clang_rt_package() {
  if apt_available "libclang-rt-$1-dev"; then
    echo "libclang-rt-$1-dev"
  else
    echo "libclang-common-$1-dev"
  fi
}

# apt_has_suite SUITE: true if an apt source (either format) names SUITE.
apt_has_suite() {
  local files=("$apt_dir"/sources.list "$apt_dir"/sources.list.d/*.list
               "$apt_dir"/sources.list.d/*.sources)
  grep -sqE "^[^#]*[[:space:]]$1([[:space:]]|$)" "${files[@]}"
}

# apt_require_available PKG...: fails, saying exactly what to add to the apt
# sources, if any PKG has no candidate version.
apt_require_available() {
  local p gone=()
  for p in "$@"; do apt_available "$p" || gone+=("$p"); done
  ((${#gone[@]})) || return 0
  local sec="$apt_codename-security"
  {
    echo "$apt_who: not available from this machine's apt sources: ${gone[*]}"
    if [[ $apt_codename == bookworm ]] && ! apt_has_suite "$sec"; then
      cat <<EOF
$apt_who: on Debian bookworm, clang-22 and its packages (llvm-22-dev,
  libomp-22-dev, libclang-rt-22-dev, flang-22) come from the $sec
  suite, which this machine's apt sources lack (debootstrap does not add it).
  Add it in one of the two formats, then run this command again:
  - one-line format, a line in /etc/apt/sources.list:
      deb http://deb.debian.org/debian-security $sec main
  - deb822 format, a stanza in /etc/apt/sources.list.d/debian.sources:
      Types: deb
      URIs: http://deb.debian.org/debian-security
      Suites: $sec
      Components: main
      Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
  (then: apt-get update)
EOF
    else
      echo "$apt_who: Debian $apt_codename with these apt sources does not ship them" \
        "(apt-cache policy shows no candidate; if the lists are old, run apt-get update)"
    fi
  } >&2
  return 1
}

# apt_update: apt-get update, one line with its time.
apt_update() {
  local t=$SECONDS
  echo "$apt_who: apt-get update"
  apt-get update -qq || { echo "$apt_who: apt-get update failed" >&2; return 1; }
  echo "$apt_who: apt-get update done ($((SECONDS - t)) s)"
}

# apt_install_group NAME PKG...: installs the PKGs not yet installed
# (--no-install-recommends), printing what it installs and, while apt runs,
# a line at each quarter of its download and of its unpack/setup, each with
# the time since the group started. apt's own output goes to a log, shown
# only if apt fails.
apt_install_group() {
  local name=$1
  shift
  local want
  want=$(apt_missing "$@")
  if [[ -z $want ]]; then
    echo "$apt_who: $name: already installed"
    return 0
  fi
  local t=$SECONDS log rc
  log=$(mktemp /tmp/grainchunk-apt.XXXXXX.log)
  # shellcheck disable=SC2086 # $want is a list of package names
  local n
  n=$(apt-get -s install --no-install-recommends $want 2>/dev/null |
    grep -c '^Inst ' || true)
  echo "$apt_who: $name: installing $want ($n packages with their dependencies)"
  # apt's machine-readable progress (APT::Status-Fd) on fd 3:
  # "dlstatus:<n>:<percent>:<text>" and "pmstatus:<pkg>:<percent>:<text>".
  # shellcheck disable=SC2086
  (DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
    --no-install-recommends -o APT::Status-Fd=3 -o DPkg::Lock::Timeout=600 \
    $want 3>&1 >"$log" 2>&1; echo $? >"$log.rc") | {
      local next_dl=25 next_pm=25 line pct kind
      while IFS= read -r line; do
        kind=${line%%:*}
        pct=$(echo "$line" | cut -d: -f3)
        pct=${pct%%.*}
        [[ $pct =~ ^[0-9]+$ ]] || continue
        if [[ $kind == dlstatus ]] && ((pct >= next_dl && next_dl <= 75)); then
          echo "$apt_who: $name: downloaded $((pct / 25 * 25))% ($((SECONDS - t)) s)"
          next_dl=$((pct / 25 * 25 + 25))
        elif [[ $kind == pmstatus ]] && ((pct >= next_pm && next_pm <= 75)); then
          echo "$apt_who: $name: unpacked and set up $((pct / 25 * 25))% ($((SECONDS - t)) s)"
          next_pm=$((pct / 25 * 25 + 25))
        fi
      done
    }
  rc=$(cat "$log.rc" 2>/dev/null || echo 1)
  rm -f "$log.rc"
  if ((rc)); then
    echo "$apt_who: $name: apt-get install failed; the end of its output ($log):" >&2
    tail -n 20 "$log" >&2
    return "$rc"
  fi
  rm -f "$log"
  echo "$apt_who: $name: done ($((SECONDS - t)) s)"
}

# apt_enable_deb_src: makes apt fetch source packages (apt-get source) from
# every source of this Debian release that has binary packages: in deb822
# files a stanza whose Suites name the release gets "deb-src" in its Types;
# in one-line files each "deb" line of the release gets a "deb-src" twin.
# Idempotent: nothing changes where deb-src is already there. Runs
# apt-get update if it changed a file.
apt_enable_deb_src() {
  local f changed=0 tmp
  for f in "$apt_dir"/sources.list.d/*.sources; do
    [[ -f $f ]] || continue
    tmp=$(awk -v rel="$apt_codename" '
      function flush(   i, fix) {
        fix = 0
        if (types > 0 && suites ~ ("(^|[[:space:]])" rel "([-[:space:]]|$)") &&
            stanza[types] !~ /deb-src/ && stanza[types] ~ /(^|[[:space:]])deb([[:space:]]|$)/)
          fix = 1
        for (i = 1; i <= n; i++) {
          if (fix && i == types) { sub(/[[:space:]]*$/, " deb-src", stanza[i]) }
          print stanza[i]
        }
        n = 0; types = 0; suites = ""
      }
      /^[[:space:]]*$/ { flush(); print; next }
      { stanza[++n] = $0 }
      /^Types:/ { types = n }
      /^Suites:/ { suites = substr($0, 8) }
      END { flush() }' "$f")
    if [[ "$tmp" != "$(cat "$f")" ]]; then
      printf '%s\n' "$tmp" >"$f"
      echo "$apt_who: enabled deb-src in $f"
      changed=1
    fi
  done
  for f in "$apt_dir"/sources.list "$apt_dir"/sources.list.d/*.list; do
    [[ -f $f ]] || continue
    tmp=$(awk -v rel="$apt_codename" '
      { print }
      /^[[:space:]]*deb-src[[:space:]]/ { r = $0; sub(/^[[:space:]]*deb-src[[:space:]]+/, "", r); have[r] = 1 }
      /^[[:space:]]*deb[[:space:]]/ {
        r = $0; sub(/^[[:space:]]*deb[[:space:]]+/, "", r)
        s = r; sub(/^\[[^]]*\][[:space:]]*/, "", s)   # drop [options]
        split(s, w, /[[:space:]]+/)                  # w[1] URI, w[2] suite
        if (w[2] ~ ("^" rel "(-|$)")) want[++m] = r
      }
      END { for (i = 1; i <= m; i++) if (!(want[i] in have)) print "deb-src " want[i] }' "$f")
    if [[ "$tmp" != "$(cat "$f")" ]]; then
      printf '%s\n' "$tmp" >"$f"
      echo "$apt_who: enabled deb-src in $f"
      changed=1
    fi
  done
  if ((changed)); then apt_update; fi
}
