//===- ClangPlugin.cpp - The -fplugin=libgrainchunk.so entry --------------===//
//
// A Clang frontend plugin whose only job is to add GrainChunkPass at the
// pipeline-start extension point of the compilation it is loaded into, so
// that `clang -fplugin=libgrainchunk.so -fopenmp ...` is all a user types.
//
// Arguments (-fplugin-arg-grainchunk-<arg>):
//   disable   load the plugin but leave every loop as Clang made it
//   help      print the arguments and the remark options, then go on
// Any other argument is an error.
//
//===----------------------------------------------------------------------===//

#include "GrainChunkPass.h"

#include "clang/AST/ASTConsumer.h"
#include "clang/Basic/DiagnosticFrontend.h"
#include "clang/Frontend/CompilerInstance.h"
#include "clang/Frontend/FrontendPluginRegistry.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/raw_ostream.h"

using namespace clang;

namespace {

class GrainChunkAction : public PluginASTAction {
  bool Disabled = false;

protected:
  std::unique_ptr<ASTConsumer> CreateASTConsumer(CompilerInstance &CI,
                                                 llvm::StringRef) override {
    if (!Disabled)
      CI.getCodeGenOpts().PassBuilderCallbacks.push_back(
          [](llvm::PassBuilder &PB) {
            grainchunk::registerAtPipelineStart(PB);
          });
    return std::make_unique<ASTConsumer>();
  }

  bool ParseArgs(const CompilerInstance &CI,
                 const std::vector<std::string> &Args) override {
    for (const std::string &Arg : Args) {
      if (Arg == "disable") {
        Disabled = true;
      } else if (Arg == "help") {
        llvm::errs()
            << "grainchunk: reports every chunk of schedule(static, N) loops "
               "to OMPT tools\n"
               "  -fplugin-arg-grainchunk-disable  leave all loops untouched\n"
               "  -fplugin-arg-grainchunk-help     print this help\n"
               "  -Rpass=grainchunk                list instrumented loops\n"
               "  -Rpass-missed=grainchunk         list loops left alone, "
               "and why\n";
      } else {
        DiagnosticsEngine &D = CI.getDiagnostics();
        unsigned ID = D.getCustomDiagID(
            DiagnosticsEngine::Error,
            "grainchunk: unknown plugin argument '%0' (known: disable, help; "
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
