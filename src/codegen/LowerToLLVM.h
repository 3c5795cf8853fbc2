// Lowering of laid-out TIR to LLVM IR for the NVPTX backend.
//
// Each tir::Function becomes one kernel (`ptx_kernel`, `!nvvm.annotations` kernel and maxntidx =
// 32 * num_warps) named like the function; pointer parameters are `ptr addrspace(1)` with the
// promised `align`, scalars are passed by value. Every tensor value is held per thread as the
// list of elements its layout gives the thread (codegen/Distribution.h); scalars are single
// (uniform) LLVM values. Structured control flow becomes basic blocks with phis.
//
// Shared memory, used by cross-warp reductions and layout conversions, is the dynamic shared
// memory buffer `global_smem` as in Triton: the host launches with sharedMemBytes equal to the
// kernel's shared_memory_bytes (codegen/SharedMemory.h, also in the metadata).
#pragma once

#include "codegen/TargetOptions.h"
#include "tir/IR.h"

#include <memory>
#include <string>
#include <vector>

namespace llvm {
class LLVMContext;
class Module;
} // namespace llvm

namespace tilec::codegen {

struct KernelInfo {
  std::string name;
  unsigned numWarps = 4;
  unsigned sharedMemoryBytes = 0;
};

/// Lowers every function of `module` (all tensors must carry layouts: run the gpu layout passes
/// first). Throws CompileError ("not supported yet", at the op's location) for what it cannot
/// lower. When `kernels` is given, one KernelInfo per function is appended to it.
std::unique_ptr<llvm::Module> lowerToLLVM(const tir::Module &module, llvm::LLVMContext &context,
                                          const TargetOptions &options,
                                          std::vector<KernelInfo> *kernels = nullptr);

/// Lowers `function` of `module` alone into a module of its own, with the code it gets from
/// lowerToLLVM among the other functions of `module` (the driver compiles the variants of
/// autotuned kernels this way, each on its own thread).
std::unique_ptr<llvm::Module> lowerFunctionToLLVM(const tir::Module &module,
                                                  const tir::Function &function,
                                                  llvm::LLVMContext &context,
                                                  const TargetOptions &options);

} // namespace tilec::codegen
