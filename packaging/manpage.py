#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""manpage.py: a man page (section 1) from a command's --help and --version.

    manpage.py OUT NAME SUMMARY -- COMMAND [ARGS...]

Runs COMMAND --help and COMMAND --version and writes roff to OUT, gzip'd
(level 9, no name or time stamp, as Debian wants) when OUT ends in .gz.
What it reads, in the order the help gives it:
  usage: ...               the SYNOPSIS
  Heading:                 a section (argparse's "options:", "Example:")
    -x, --opt ARG  text    an option, continued by more-indented lines
    other indented lines   shown as typed (examples)
  other lines              paragraphs
Options before any heading get the heading OPTIONS.
The build runs it for grainchunk-config and grainchunk-graph
(packaging/CMakeLists.txt).
"""
import gzip
import os
import re
import subprocess
import sys


def esc(text):
    """Roff-escapes text (backslashes, hyphens, a leading dot or quote)."""
    text = text.replace("\\", "\\e").replace("-", "\\-")
    return "\\&" + text if text[:1] in (".", "'") else text


def run(cmd, opt):
    # A fixed width: argparse wraps its help to $COLUMNS.
    env = dict(os.environ, COLUMNS="80", LC_ALL="C")
    res = subprocess.run(cmd + [opt], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True, env=env)
    if res.returncode != 0 or not res.stdout.strip():
        sys.exit(f"manpage.py: '{' '.join(cmd + [opt])}' failed (exit {res.returncode}): "
                 f"{res.stderr.strip() or 'no output'}")
    return res.stdout


OPTION = re.compile(r"^(\s+)(-\S.*?)(?:\s{2,}(\S.*))?$")


def roff(name, summary, help_text, version):
    lines = help_text.rstrip("\n").split("\n")
    number = version.split()[-1]
    out = [f'.TH {esc(name.upper())} 1 "" "grainchunk {esc(number)}" "User Commands"',
           ".SH NAME", f"{esc(name)} \\- {esc(summary)}"]
    i = 0
    synopsis = [name]
    if lines and lines[0].startswith("usage:"):
        synopsis = [lines[0][len("usage:"):].strip()]
        i = 1
        # argparse continues a long usage line with indented lines.
        while i < len(lines) and lines[i].startswith(" ") and not OPTION.match(lines[i]):
            synopsis.append(lines[i].strip())
            i += 1
    out += [".SH SYNOPSIS", ".B " + esc(" ".join(synopsis)), ".SH DESCRIPTION"]
    section = "DESCRIPTION"
    literal = False  # inside .nf (lines shown as typed)
    opt_indent = None  # the current option's indentation
    paragraph = False  # text since the last break
    for line in lines[i:]:
        indent = len(line) - len(line.lstrip())
        m = OPTION.match(line)
        cont = opt_indent is not None and line.strip() and indent > opt_indent and not m
        if literal and (not line.startswith(" ") or m or cont):
            out.append(".fi")
            literal = False
        if not line.strip():
            opt_indent, paragraph = None, False
        elif not line.startswith(" ") and line.rstrip().endswith(":"):
            heading = line.rstrip()[:-1].upper()
            section = "OPTIONS" if heading == "OPTIONAL ARGUMENTS" else heading
            out.append(".SH " + esc(section))
            opt_indent, paragraph = None, False
        elif m:
            if section == "DESCRIPTION":  # options listed without a heading
                section = "OPTIONS"
                out.append(".SH OPTIONS")
            opt_indent, paragraph = indent, False
            out += [".TP", f"\\fB{esc(m.group(2).strip())}\\fR"]
            if m.group(3):
                out.append(esc(m.group(3)))
        elif cont:
            out.append(esc(line.strip()))
        elif line.startswith(" "):
            if not literal:
                out.append(".nf")
                literal = True
            out.append(esc(line.strip()))
        else:
            if not paragraph and not out[-1].startswith(".SH"):
                out.append(".PP")
            out.append(esc(line.strip()))
            paragraph = True
    if literal:
        out.append(".fi")
    out += [".SH SEE ALSO",
            "The README and docs/ in /usr/share/doc/grainchunk (share/doc/grainchunk "
            "under the install prefix)."]
    return "\n".join(out) + "\n"


def main(argv):
    if len(argv) < 5 or argv[3] != "--":
        sys.exit("usage: manpage.py OUT NAME SUMMARY -- COMMAND [ARGS...]")
    out, name, summary, cmd = argv[0], argv[1], argv[2], argv[4:]
    text = roff(name, summary, run(cmd, "--help"), run(cmd, "--version").strip())
    data = text.encode()
    tmp = out + ".tmp"
    if out.endswith(".gz"):
        with open(tmp, "wb") as f:
            with gzip.GzipFile(filename="", mode="wb", compresslevel=9, fileobj=f,
                               mtime=0) as z:
                z.write(data)
    else:
        with open(tmp, "wb") as f:
            f.write(data)
    os.replace(tmp, out)


if __name__ == "__main__":
    main(sys.argv[1:])
