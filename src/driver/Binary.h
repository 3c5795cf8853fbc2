// Cubin and fatbin output through the CUDA toolkit's ptxas and fatbinary (`--emit cubin|fatbin`).
//
// LLVM's NVPTX backend stops at PTX; turning PTX into machine code (SASS) is the toolkit's job,
// as it is for Triton, which runs ptxas too. The tools are those of $CUDA_HOME/bin when CUDA_HOME
// is set, else found on PATH or in /usr/local/cuda/bin; without them these outputs are an error,
// never a PTX in disguise.
#pragma once

#include "driver/Pipeline.h"

#include <iosfwd>
#include <string>
#include <vector>

namespace tilec::driver {

/// The path of CUDA toolkit tool `name`, or "" when there is none.
std::string findCudaTool(const std::string &name);

/// ptxas: `ptx` assembled for `arch` (sm_90a...) into a cubin. Throws CompileError with ptxas's
/// messages when it fails or cannot be found; writes a warning to `log` for each kernel whose
/// registers do not fit (ptxas spills to local memory).
std::string assembleCubin(const std::string &ptx, const std::string &arch, std::ostream &log);

/// Compiles `options` once per arch of `archs` and packs the machine code of each into a fatbin
/// (fatbinary), with the PTX of the newest arch-independent target (no `a` suffix) as well, so
/// that GPUs newer than every arch listed can still JIT it. The metadata is the first arch's,
/// with `targets` listing every arch and each kernel's shared memory the most any arch needs.
/// With one arch and `cubin`, the result is that arch's cubin instead.
CompileResult compileBinary(const CompileOptions &options, const std::vector<std::string> &archs,
                            bool cubin, SourceManager &sources, std::ostream &log);

} // namespace tilec::driver
