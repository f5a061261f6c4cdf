# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""unchanged.py PASSLIB IN.ll REASON: runs the grainchunk pass on IN.ll and
requires the output to equal opt's plain round trip of it, and the pass's
missed-remark to contain REASON."""
import os
import subprocess
import sys

passlib, path, reason = sys.argv[1:4]
ref = subprocess.run(["opt", "-S", path], capture_output=True, text=True,
                     check=True).stdout
run = subprocess.run(["opt", f"-load-pass-plugin={passlib}",
                      "-passes=grainchunk", "-pass-remarks-missed=grainchunk",
                      "-S", path], capture_output=True, text=True)
if run.returncode != 0:
    sys.exit(f"opt failed on {path}:\n{run.stderr}")
if run.stdout != ref:
    sys.exit(f"{os.path.basename(path)}: the pass changed a loop it must leave alone")
if reason not in run.stderr:
    sys.exit(f"{os.path.basename(path)}: expected remark containing '{reason}', "
             f"got:\n{run.stderr}")
print(f"{os.path.basename(path)}: unchanged; remark: {reason}")
