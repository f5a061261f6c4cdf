# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Runs a command under a file size limit, as `ulimit -f` would:
    fsize_limit.py BYTES COMMAND [ARG...]
sets RLIMIT_FSIZE to BYTES and SIGXFSZ back to its default action (Python
ignores it, and an ignored signal stays ignored across exec), then execs
COMMAND: a file the command grows past BYTES kills it with SIGXFSZ."""
import os
import resource
import signal
import sys

limit = int(sys.argv[1])
resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
signal.signal(signal.SIGXFSZ, signal.SIG_DFL)
os.execvp(sys.argv[2], sys.argv[2:])
