# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# lit configuration for grainchunk. Run through ctest, or directly on the
# build tree (one test or all):  lit -sv build/test [build/test/codegen/x.c]
import os
import shutil
import subprocess
import lit.formats

if not hasattr(config, "grainchunk_obj"):
    lit_config.fatal("run lit on the build tree (lit build/test), not on the "
                     "source tree")

config.name = "grainchunk"
config.test_format = lit.formats.ShTest(execute_external=True)
config.suffixes = [".c", ".cpp", ".ll", ".test"]
config.excludes = ["Inputs", "lit.cfg.py", "lit.site.cfg.py.in", "unit"]

obj = config.grainchunk_obj
plugin = os.path.join(obj, "clang-plugin", "libgrainchunk.so")
passlib = os.path.join(obj, "clang-plugin", "libGrainChunkPass.so")
shimdir = os.path.join(obj, "runtime-shim")
omp = config.omp_libdir
inc = os.path.join(config.grainchunk_src, "include")

# Programs find the libomp of the toolchain under test, not whatever the
# system has.
# (and compile against its omp.h: Debian installs one libomp-N-dev at a time,
# the tests use a private copy of each)
omp_link = f"-isystem {config.ompt_include} -L{omp} -Wl,-rpath,{omp}"
shim_link = (f"-L{shimdir} -Wl,--push-state,--no-as-needed -lgrainchunk-rt "
             f"-Wl,--pop-state -Wl,-rpath,{shimdir}")
config.substitutions += [
    ("%clangxx", f"{config.clang}++"),
    ("%clang", config.clang),
    ("%opt", config.opt),
    ("%plugin", plugin),
    ("%passlib", passlib),
    ("%shimlib", os.path.join(shimdir, "libgrainchunk-rt.so.0")),
    ("%shimdir", shimdir),
    ("%tooldir", os.path.join(obj, "test")),
    ("%shim_link", shim_link),
    ("%omp_link", omp_link),
    ("%omp_inc", f"-isystem {config.ompt_include}"),
    ("%omp_libdir", omp),
    ("%chunk_tool", os.path.join(obj, "test", "libchunk_tool.so")),
    ("%ext_tool", os.path.join(obj, "test", "libext_tool.so")),
    ("%check_ext", f"{config.python} {config.grainchunk_src}/test/e2e/check_ext.py"),
    ("%check_chunks", f"{config.python} {config.grainchunk_src}/test/e2e/check_chunks.py"),
    ("%inputs", os.path.join(config.grainchunk_src, "test", "e2e", "Inputs")),
    ("%include", inc),
    ("%ompt_multiplex_include", config.ompt_multiplex_include),
    ("%ompt_include", config.ompt_include),
    ("%python", config.python),
    ("%build", obj),
    ("%cmake", config.cmake),
    ("%cpack", config.cpack),
    ("%src", config.grainchunk_src),
    # A module's text without its quoted strings and comments: what is left
    # cannot hold a path (the ModuleID, source_filename and OpenMP location
    # strings do), so a search for grainchunk's names in it does not match a
    # tree cloned into a directory named grainchunk.
    ("%ir_code", "sed -e 's/\"[^\"]*\"//g' -e 's/;.*//'"),
    # What the plugin adds to a module: its helpers, values and metadata
    # (grainchunk.*, !grainchunk) and calls of the runtime library's entry
    # points (include/grainchunk.h).
    ("%gc_marks",
     "grainchunk|__kmpc_should_callback_per_chunk|__kmpc_for_static_chunk"),
]
# grainchunk-graph (tools/) and its checks. The checks read GraphML with
# networkx and PNG with PIL in Debian's python3 (python3-networkx,
# python3-pil) and render SVG with rsvg-convert (librsvg2-bin): all from
# scripts/install-deps.sh.
config.substitutions += [
    ("%graph_tool", os.path.join(obj, "tools", "libgrainchunk-record.so")),
    ("%graph_driver", os.path.join(obj, "test", "graph_ext_driver")),
    ("%graph_names", os.path.join(obj, "test", "graph_names")),
    ("%graph_check", f"/usr/bin/python3 {config.grainchunk_src}/test/graph/check_graph.py"),
    ("%graph", os.path.join(obj, "tools", "grainchunk-graph")),
]
lit_config.parallelism_groups["grainchunk-graph"] = 1
if shutil.which("rsvg-convert") and subprocess.run(
        ["/usr/bin/python3", "-c", "import networkx, PIL"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode == 0:
    config.available_features.add("graph-readers")
# report.html is checked in headless Chromium (Debian's chromium, driven over
# the DevTools protocol with python3-websocket; both from install-deps.sh).
config.substitutions.append(
    ("%report_check",
     f"/usr/bin/python3 {config.grainchunk_src}/test/graph/check_report.py"))
if os.path.exists("/usr/bin/chromium") and subprocess.run(
        ["/usr/bin/python3", "-c", "import websocket, PIL"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode == 0:
    config.available_features.add("chromium")
config.environment["PATH"] = os.pathsep.join(
    [config.llvm_tools_dir, config.environment.get("PATH", os.environ["PATH"])])
# Tests set their own tool; never inherit one from the caller.
for var in ["OMP_TOOL", "OMP_TOOL_LIBRARIES", "OMP_TOOL_VERBOSE_INIT",
            "GRAINCHUNK_VERBOSE", "OMP_NUM_THREADS", "LD_PRELOAD"]:
    config.environment.pop(var, None)
config.available_features.add(f"llvm-{config.llvm_version_major}")
# The Debian package (install/package.test): CMake writes CPackConfig.cmake
# when building against Debian's clang-N (packaging/CMakeLists.txt).
if (os.path.exists(os.path.join(obj, "CPackConfig.cmake")) and
        shutil.which("dpkg-deb")):
    config.available_features.add("deb-package")
if shutil.which("gcc"):
    config.available_features.add("gcc")
if shutil.which("gfortran"):
    config.available_features.add("gfortran")
# Clang 14 emits typed pointers (i32*), later versions opaque ones (ptr);
# %i32ptr spells a pointer to i32. Before LLVM 19, IRBuilder folds a weak
# function's null test into an icmp constant expression; %nullcheck names
# the FileCheck prefix for the form this version emits.
major = int(config.llvm_version_major)
config.available_features.add("typed-pointers" if major < 15 else
                              "opaque-pointers")
config.substitutions += [
    ("%i32ptr", "i32*" if major < 15 else "ptr"),
    ("%nullcheck", "FOLDED" if major < 19 else "INST"),
    ("%llvm_major", str(major)),
]
# flang-N of the LLVM under test (Debian's flang-N: bin/flang in LLVM 22,
# bin/flang-new in 19) loads the pass plugin built for it (-fpass-plugin);
# it takes no -isystem (%omp_link). Features: "flang" (any version; tests
# of what every flang must do) and "flang-N" (tests of one version's IR,
# remarks or names).
for name in ("flang", "flang-new"):
    flang = f"/usr/lib/llvm-{major}/bin/{name}"
    if os.path.exists(flang):
        config.available_features.add("flang")
        config.available_features.add(f"flang-{major}")
        config.substitutions += [
            ("%flang_omp_link", f"-L{omp} -Wl,-rpath,{omp}"),
            ("%flang", flang)]
        break
# Another installed Clang (any major version but the one under test), to load
# this plugin into the wrong Clang.
for other in (22, 19, 16, 15, 14):
    path = f"/usr/lib/llvm-{other}/bin/clang"
    if other != major and os.path.exists(path):
        config.available_features.add("other-clang")
        config.substitutions.append(("%other_clang", path))
        config.substitutions.append(("%other_major", str(other)))
        break
# The oldest installed Clang older than the one under test: its programs run
# on this version's libomp (a newer Clang's need entry points an older libomp
# lacks, e.g. __kmpc_dispatch_deinit).
for older in (14, 15, 16, 19):
    path = f"/usr/lib/llvm-{older}/bin/clang"
    if older < major and os.path.exists(path):
        config.available_features.add("older-clang")
        config.substitutions.append(("%older_clang", path))
        break
# OpenMPIRBuilder (-fopenmp-enable-irbuilder) is experimental before Clang 19.
if major >= 19:
    config.available_features.add("irbuilder")
# Open MPI (openmpi-bin, libopenmpi-dev): hybrid MPI + OpenMP programs run
# with %mpirun (as root, on this 2-core machine oversubscribed).
mpicc = shutil.which("mpicc")
if mpicc and shutil.which("mpirun"):
    def showme(what):
        return subprocess.run([mpicc, f"--showme:{what}"], capture_output=True,
                              text=True).stdout.strip()
    config.available_features.add("mpi")
    config.substitutions += [
        ("%mpi_cflags", showme("compile")),
        ("%mpi_libs", showme("link")),
        ("%mpirun", "env OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 "
                    "OMPI_MCA_rmaps_base_oversubscribe=1 mpirun --oversubscribe"),
    ]
