// The NVPTX TargetMachine for a TargetOptions (internal to codegen).
#pragma once

#include "codegen/TargetOptions.h"

#include <memory>

namespace llvm {
class Module;
class TargetMachine;
} // namespace llvm

namespace tilec::codegen {

constexpr const char *kNVPTXTriple = "nvptx64-nvidia-cuda";

/// The module flag (an integer, merged by maximum) through which the lowering asks for a PTX ISA
/// version newer than the arch's oldest: 84 for 8.4.
constexpr const char *kMinimumPtxVersionFlag = "tilec.minimum-ptx-version";

/// The newest PTX ISA version LLVM 19's NVPTX backend emits (+ptx85); a newer minimum is
/// written into the PTX's `.version` directive after emission.
constexpr unsigned kNewestLlvmPtxVersion = 85;

/// The PTX ISA version the lowering asked `module` for through kMinimumPtxVersionFlag; 0: none.
unsigned minimumPtxVersion(const llvm::Module &module);

/// A TargetMachine for `options.arch`, emitting PTX ISA `minimumPtxVersion` or the arch's oldest
/// version, whichever is newer, with 32-bit shared-memory pointers (data layout "p3:32:32") where
/// `shortSharedPointers` says so; throws CompileError for an unknown arch.
std::unique_ptr<llvm::TargetMachine> createNVPTXTargetMachine(const TargetOptions &options,
                                                              bool shortSharedPointers,
                                                              unsigned minimumPtxVersion = 0);

/// Whether `module`'s data layout makes shared-memory pointers 32-bit.
bool hasShortSharedPointers(const llvm::Module &module);

} // namespace tilec::codegen
