// The NVPTX TargetMachine for a TargetOptions (internal to codegen).
#pragma once

#include "codegen/TargetOptions.h"

#include <memory>

namespace llvm {
class TargetMachine;
}

namespace tilec::codegen {

constexpr const char *kNVPTXTriple = "nvptx64-nvidia-cuda";

/// A TargetMachine for `options.arch`; throws CompileError for an unknown arch.
std::unique_ptr<llvm::TargetMachine> createNVPTXTargetMachine(const TargetOptions &options);

} // namespace tilec::codegen
