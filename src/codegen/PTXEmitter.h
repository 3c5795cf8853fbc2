// LLVM optimisation and PTX emission with the NVPTX TargetMachine, in process.
#pragma once

#include "codegen/TargetOptions.h"

#include <string>

namespace llvm {
class Module;
}

namespace tilec::codegen {

/// Links the libdevice functions `module` calls (`__nv_*`) from
/// /usr/local/cuda/nvvm/libdevice/libdevice.10.bc (or $TILEC_LIBDEVICE) and internalises them.
/// Does nothing when the module calls none. Throws CompileError when libdevice is needed but
/// cannot be read.
void linkLibdevice(llvm::Module &module, const TargetOptions &options);

/// Runs LLVM's default O<optLevel> pipeline for the target (libdevice linked first).
void optimizeModule(llvm::Module &module, const TargetOptions &options);

/// The PTX text for `module` (libdevice linked first when needed), with wide multiply-adds fused
/// (FuseWideMultiplyAdd.h).
std::string emitPTX(llvm::Module &module, const TargetOptions &options);

} // namespace tilec::codegen
