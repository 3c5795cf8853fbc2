// What the GPU code is generated for.
#pragma once

#include <string>

namespace tilec {
class SourceManager;
}

namespace tilec::codegen {

struct TargetOptions {
  /// The SM the PTX targets ("sm_90a", "sm_80", ...).
  std::string arch = "sm_90a";
  /// LLVM optimisation level, 0 to 3.
  unsigned optLevel = 3;
  /// Contract a*b+c into fma, as Triton does by default (its enable_fp_fusion).
  bool fpFusion = true;
  /// The libdevice.10.bc linked for math functions; empty: $TILEC_LIBDEVICE, else the CUDA
  /// toolkit's. Triton links the copy its wheel ships, whose functions differ from CUDA 13's in
  /// places (erff's coefficients, for one): its copy gives its bits.
  std::string libdevice;
  /// Where "not supported yet" errors are reported with the source line; without one they are
  /// thrown as CompileError formatted "line:col: error: ...".
  const SourceManager *sources = nullptr;
};

} // namespace tilec::codegen
