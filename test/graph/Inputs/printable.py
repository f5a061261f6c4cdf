#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""printable.py FILE...: fails naming the first byte in any FILE that is a
control character other than newline, or not part of valid UTF-8 (what a
terminal would act on or show as garbage)."""
import sys

bad = 0
for path in sys.argv[1:]:
    data = open(path, "rb").read()
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        print("%s: byte %d is not UTF-8 (0x%02x)" % (path, e.start, data[e.start]))
        bad = 1
        continue
    for i, c in enumerate(text):
        if (ord(c) < 32 and c != "\n") or ord(c) == 127:
            print("%s: character %d is a control character (0x%02x)" % (path, i, ord(c)))
            bad = 1
            break
sys.exit(bad)
