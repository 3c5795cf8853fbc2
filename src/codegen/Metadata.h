// The metadata file written next to the PTX (schema "tilec-metadata", version 1), read by the
// runtime to find and launch kernels:
//
//   {"schema": "tilec-metadata", "version": 1, "compiler": "tilec 0.1.0",
//    "source": "samples/vector_add.tl", "target": "sm_90a",
//    "kernels": [{"name": "add_kernel", "entry": "add_kernel", "num_warps": 4,
//                 "threads_per_block": 128, "shared_memory_bytes": 0,
//                 "params": [{"name": "x_ptr", "type": "*fp32", "alignment": 16},
//                            {"name": "n_elements", "type": "i32", "divisibility": 0}],
//                 "constexprs": [{"name": "BLOCK_SIZE", "value": "1024"}]}]}
//
// Types are spelled as in Triton's AOT signatures (i1 i8 ... u64 fp16 bf16 fp32 fp64 fp8e4nv
// fp8e5, `*` before a pointer's pointee). shared_memory_bytes is the dynamic shared memory the
// launch must provide. The output is deterministic.
#pragma once

#include "codegen/TargetOptions.h"
#include "tir/IR.h"

#include <string>
#include <vector>

namespace tilec::codegen {

/// A dtype as a Triton AOT signature spells it ("fp32", "*fp16", "i32", "u8", "fp8e4nv").
std::string signatureTypeName(const tir::DType &type);

/// The autotune variants of one kernel (@triton.autotune): functions of the module compiled from
/// the same @triton.jit function, one per config. Schema version 2 (docs/metadata.md) lists them
/// under one kernel entry.
struct KernelVariants {
  std::string name;              // the @triton.jit function
  std::vector<std::string> key;  // the autotune key's parameter names
  std::vector<std::string> entries;  // the variants' function (.entry) names, in config order
  std::vector<unsigned> numStages;   // per variant
};

/// The metadata of every kernel of `module`, which must have been through the layout passes
/// (the shared memory size depends on the layouts). Functions named in `variants` are described
/// as the variants of their kernel; the document is version 3 when a kernel or variant has tensor
/// maps, else 2 when there are variants, else 1.
std::string kernelMetadataJson(const tir::Module &module, const TargetOptions &options,
                               const std::string &sourceName,
                               const std::vector<KernelVariants> &variants = {});

} // namespace tilec::codegen
