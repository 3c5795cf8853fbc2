// LLVM optimisation and PTX emission with the NVPTX TargetMachine, in process.
#pragma once

#include "codegen/TargetOptions.h"

#include <optional>
#include <string>
#include <vector>

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

/// The PTX of one module of several kernels from the PTX of each kernel compiled in a module of
/// its own (`pieces`, in the module's order, lowered by lowerFunctionToLLVM and given the
/// module's minimum PTX version): one header and one declaration of global_smem, then each
/// kernel with its labels (`$L__BB0_3`) and local stack (`__local_depot0`) numbered as the k-th
/// function's, byte for byte the PTX that the module compiled whole gives where its kernels share
/// nothing. Nothing where a piece holds more than that (a device function, a global other than
/// global_smem, a call): such a module is compiled whole.
std::optional<std::string> mergeKernelPTX(const std::vector<std::string> &pieces);

} // namespace tilec::codegen
