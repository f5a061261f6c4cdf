//===- ClangPlugin.cpp - The -fplugin=libgrainchunk.so entry --------------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// A Clang frontend plugin whose only job is to add GrainChunkPass at the
// pipeline-start extension point of the compilation it is loaded into, so
// that `clang -fplugin=libgrainchunk.so -fopenmp ...` is all a user types.
//
// Arguments (-fplugin-arg-grainchunk-<arg>):
//   disable         load the plugin but leave the compilation as Clang
//                   makes it (no instrumented loop, no line tables)
//   no-line-tables  do not turn on line tables (see below)
//   help            print the arguments and the remark options, then go on
// Any other argument is an error.
//
// Line tables: a compilation without -g gets line tables only (what
// -gline-tables-only gives), so that every code address a tool is given
// (the OMPT callbacks' codeptr_ra) names its file and line, an #included
// file's construct by that file: tools (grainchunk-graph) name loops and
// task sites by them. They are on only while CodeGen makes its module
// (which then makes the module's line tables: CGDebugInfo keeps the kind it
// was made with); the kind the compilation asked for is back before CodeGen
// sees its first declaration (class LineTablesOnly). So what Clang decides
// by that option while it generates code stays as without -g: above all
// OpenMP's source locations, one ";unknown;unknown;0;0;;" ident_t shared by
// every runtime call (plain -gline-tables-only gives each construct its
// own, which changes the instructions that pass them: a register kept for
// the shared one becomes a load per call), and the pass keeps passing the
// init call's ident_t (LineTablesAdded). The instructions are those of the
// build without line tables, byte for byte (test/codegen/line-tables.test);
// .debug_line and a few other .debug_* sections are added. A compilation
// that asks for debug information itself (-g, -g1, -gline-tables-only,
// -gline-directives-only) is left as it is; -Rpass's location tracking is
// not debug information and gets line tables too.
//
// This needs a CodeGen that reads the compilation's options when it makes
// its module: Clang 22's does (ModuleBuilder's CodeGeneratorImpl holds
// them by reference). Clang 14 and 15 copy them when the main action
// starts, before any plugin runs: there the plugin cannot add line tables,
// and loops and tasks built without -g are named by function and code
// address (grainchunk-graph says so and what to add: -g or
// -gline-tables-only).
//
// Clang's C++ interface changes between major versions, so the plugin runs
// only in the Clang it was built for. When the library is loaded, before it
// registers anything, it asks the loading Clang for its version (the
// exported clang::getClangFullVersion) and, on a mismatch, prints one line
// naming both versions and ends the compilation with exit code 1.
//
// Clang >= 18 takes the pass through CodeGenOptions::PassBuilderCallbacks.
// Older Clang has no such hook, only the list of pass plugins that
// -fpass-plugin= fills (CodeGenOptions::PassPlugins): the plugin adds its own
// file to that list, and the same library (built with PassPlugin.cpp for
// those versions) then registers the pass through llvmGetPassPluginInfo when
// the backend loads it. Either way, -fplugin= is the only flag a user adds.
//
//===----------------------------------------------------------------------===//

#include "GrainChunkPass.h"

#include "clang/AST/ASTConsumer.h"
#include "clang/Basic/CodeGenOptions.h"
#include "clang/Basic/DiagnosticFrontend.h"
#include "clang/Basic/Version.h"
#include "clang/Frontend/CompilerInstance.h"
#include "clang/Frontend/FrontendPluginRegistry.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <string>
#include <unistd.h>

#if LLVM_VERSION_MAJOR < 18
#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include <algorithm>
#endif

using namespace clang;

namespace {

/// Stops the compilation, before the plugin registers anything, if the Clang
/// loading it is not the major version it was built for: calling into
/// another version's classes crashes (clang-14 loading a plugin built for 22
/// ends in SIGSEGV). Clang exports clang::getClangFullVersion() from
/// libclang-cpp in every supported version; a Clang that does not export it
/// (a static build) is not checked.
struct VersionGuard {
  VersionGuard() {
    using VersionFn = std::string (*)();
    void *Sym = dlsym(RTLD_DEFAULT, "_ZN5clang19getClangFullVersionB5cxx11Ev");
    if (!Sym)
      return;
    std::string Host = reinterpret_cast<VersionFn>(Sym)();
    size_t At = Host.find("version ");
    if (At == std::string::npos)
      return;
    std::string HostVersion = Host.substr(At + 8);
    HostVersion = HostVersion.substr(0, HostVersion.find_first_of(" )"));
    if (std::atoi(HostVersion.c_str()) == CLANG_VERSION_MAJOR)
      return;
    int Major = std::atoi(HostVersion.c_str());
    std::fprintf(stderr,
                 "error: grainchunk: this plugin was built for Clang %s but "
                 "is loaded by Clang %s; use the libgrainchunk.so built for "
                 "Clang %d (package grainchunk-clang-%d, or "
                 "GRAINCHUNK_LLVM_VERSION=%d bash scripts/build.sh)\n",
                 CLANG_VERSION_STRING, HostVersion.c_str(), Major, Major,
                 Major);
    std::fflush(stderr);
    // Nothing of this Clang's state may be touched any more: leave now.
    _exit(1);
  }
};
VersionGuard Guard; // constructed before the registration at the end

#if LLVM_VERSION_MAJOR < 18
/// The file this plugin was loaded from, as an absolute path; empty if the
/// dynamic linker cannot tell.
std::string ownPath() {
  Dl_info Info;
  if (!dladdr(reinterpret_cast<void *>(&ownPath), &Info) || !Info.dli_fname)
    return "";
  llvm::SmallString<256> Path(Info.dli_fname);
  if (llvm::sys::fs::make_absolute(Path))
    return "";
  return std::string(Path.str());
}
#endif

/// Makes the compilation run GrainChunkPass at the pipeline start. Returns
/// false if this Clang cannot be made to.
bool addPass(CompilerInstance &CI) {
  grainchunk::InstrumentWithoutPipeline = true;
#if LLVM_VERSION_MAJOR >= 18
  CI.getCodeGenOpts().PassBuilderCallbacks.push_back(
      [](llvm::PassBuilder &PB) { grainchunk::registerAtPipelineStart(PB); });
  return true;
#else
  std::string Self = ownPath();
  if (Self.empty())
    return false;
  std::vector<std::string> &Plugins = CI.getCodeGenOpts().PassPlugins;
  if (std::find(Plugins.begin(), Plugins.end(), Self) == Plugins.end())
    Plugins.push_back(Self);
  return true;
#endif
}

#if LLVM_VERSION_MAJOR >= 17
namespace cgo = llvm::codegenoptions;
#else
namespace cgo = clang::codegenoptions;
#endif

/// Gives the compilation line tables only while CodeGen makes its module
/// (and with it the module's debug information, which keeps the kind it was
/// made with), then the kind the compilation asked for again, so that
/// nothing else CodeGen decides by that option changes: OpenMP's source
/// locations in particular stay as they were (one shared ";unknown;..."
/// ident_t without -g; one per construct would change the instructions
/// that pass them). The consumer runs before CodeGen's (AddBeforeMainAction):
/// its Initialize before CodeGen's makes the module, its first other call
/// before CodeGen's first.
class LineTablesOnly : public ASTConsumer {
  CodeGenOptions &Opts;
  cgo::DebugInfoKind Asked;
  bool Active = false;

  void restore() {
    if (Active)
      Opts.setDebugInfo(Asked);
    Active = false;
  }

public:
  explicit LineTablesOnly(CompilerInstance &CI)
      : Opts(CI.getCodeGenOpts()), Asked(Opts.getDebugInfo()) {}
  void Initialize(ASTContext &) override {
    // None asked for: no -g, or only the locations -Rpass keeps for
    // remarks.
    if (Asked != cgo::NoDebugInfo && Asked != cgo::LocTrackingOnly)
      return;
    Opts.setDebugInfo(cgo::DebugLineTablesOnly);
    // The version Clang's driver passes with -g on this target (DWARF 5 on
    // Linux since Clang 14); 0 leaves the module without one.
    if (!Opts.DwarfVersion)
      Opts.DwarfVersion = 5;
    grainchunk::LineTablesAdded = true;
    Active = true;
  }
  bool HandleTopLevelDecl(DeclGroupRef) override {
    restore();
    return true;
  }
  void HandleInlineFunctionDefinition(FunctionDecl *) override { restore(); }
  void HandleInterestingDecl(DeclGroupRef) override { restore(); }
  void HandleTranslationUnit(ASTContext &) override { restore(); }
  void HandleTagDeclDefinition(TagDecl *) override { restore(); }
  void HandleTagDeclRequiredDefinition(const TagDecl *) override { restore(); }
  void HandleCXXImplicitFunctionInstantiation(FunctionDecl *) override {
    restore();
  }
  void HandleTopLevelDeclInObjCContainer(DeclGroupRef) override { restore(); }
  void HandleImplicitImportDecl(ImportDecl *) override { restore(); }
  void CompleteTentativeDefinition(VarDecl *) override { restore(); }
  void AssignInheritanceModel(CXXRecordDecl *) override { restore(); }
  void HandleCXXStaticMemberVarInstantiation(VarDecl *) override { restore(); }
  void HandleVTable(CXXRecordDecl *) override { restore(); }
};

class GrainChunkAction : public PluginASTAction {
  bool Disabled = false;
  bool LineTables = true;

protected:
  std::unique_ptr<ASTConsumer> CreateASTConsumer(CompilerInstance &CI,
                                                 llvm::StringRef) override {
    if (!Disabled && !addPass(CI)) {
      DiagnosticsEngine &D = CI.getDiagnostics();
      D.Report(D.getCustomDiagID(DiagnosticsEngine::Error,
                                 "grainchunk: cannot find the plugin's own "
                                 "file to load it as a pass plugin"));
    }
    if (LineTables && !Disabled)
      return std::make_unique<LineTablesOnly>(CI);
    return std::make_unique<ASTConsumer>();
  }

  bool ParseArgs(const CompilerInstance &CI,
                 const std::vector<std::string> &Args) override {
    for (const std::string &Arg : Args) {
      if (Arg == "disable") {
        Disabled = true;
      } else if (Arg == "no-line-tables") {
        LineTables = false;
      } else if (Arg == "help") {
        llvm::errs()
            << "grainchunk: reports every chunk of schedule(static, N) loops "
               "to OMPT tools\n"
               "  -fplugin-arg-grainchunk-disable         leave all loops "
               "untouched\n"
               "  -fplugin-arg-grainchunk-no-line-tables  without -g, do not "
               "add line tables\n"
               "                                          (loops and tasks "
               "then have no file:line)\n"
               "  -fplugin-arg-grainchunk-help            print this help\n"
               "  -Rpass=grainchunk                list instrumented loops\n"
               "  -Rpass-missed=grainchunk         list loops left alone, "
               "and why\n";
      } else {
        DiagnosticsEngine &D = CI.getDiagnostics();
        unsigned ID = D.getCustomDiagID(
            DiagnosticsEngine::Error,
            "grainchunk: unknown plugin argument '%0' (known: disable, "
            "no-line-tables, help; "
            "pass -fplugin-arg-grainchunk-help for details)");
        D.Report(ID) << Arg;
        return false;
      }
    }
    return true;
  }

  ActionType getActionType() override { return AddBeforeMainAction; }
};

} // namespace

static FrontendPluginRegistry::Add<GrainChunkAction>
    X("grainchunk", "report every static loop chunk to OMPT tools");
