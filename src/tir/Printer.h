// Textual form of TIR, printed by `--emit tir` and `--print-after-all`, read by FileCheck tests.
//
//   func @add_kernel(%x_ptr: !ptr<f32> {align = 16}, %n: i32) attributes {num_warps = 4} {
//     %pid = program_id {axis = 0} : i32
//     %0 = make_range {end = 1024, start = 0} : tensor<1024xi32>
//     %r:2 = for %lb, %ub, %step, %a, %b : i32, f32 {
//     ^(%iv: i32, %a: f32, %b: f32):
//       yield %a, %b
//     }
//     return
//   }
//
// A value is printed as %<source name> when sema gave it one that is unique in the function, else
// as %<number>.
#pragma once

#include "tir/IR.h"

#include <string>

namespace tilec::tir {

std::string print(const Function &function);
std::string print(const Module &module);

} // namespace tilec::tir
