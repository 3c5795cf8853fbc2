// The GPU layout passes, run in this order on a kernel whose tensors have no layouts yet:
//
//   runTmaStores                 stores through tensor descriptor arguments become TMA stores
//                                where the target and the tile allow (TmaStores.cpp);
//   runCoalesce                  each load/store gets the blocked layout that lets a thread access
//                                the widest vector the axis info allows (Coalesce.cpp);
//   runDecomposeBatchedDot       a batched (3-D) dot Triton runs on mma.sync becomes one 2-D dot
//                                per batch (DecomposeBatchedDot.cpp);
//   runAccelerateMatmul          each dot an mma.sync instruction can compute gets the mma
//                                accumulator layout and engine = "mma_v2" (AccelerateMatmul.cpp);
//   runAssignLayouts             every other tensor gets a layout, propagated from its users and
//                                producers; disagreements become convert_layout
//                                (AssignLayouts.cpp);
//   runRemoveRedundantConversions conversions that change nothing, chains of them, and those of
//                                cheap producers (rematerialised in the wanted layout) go
//                                (RemoveRedundantConversions.cpp);
//   runHoistConversions          a conversion of what a widening (extension, broadcast) computes
//                                converts the narrow operand instead, the slice between recomputed
//                                in the conversion's layout, as Triton does (HoistConversions.cpp);
//   runOptimizeThreadLocality    a loop folding the last-axis reduction of a loaded tile into a
//                                carried value keeps per-thread partials, reduced across threads
//                                once after the loop, as Triton does (OptimizeThreadLocality.cpp).
//
// After each one `tir::verify` passes; after the last every tensor value has a layout.
#pragma once

#include "tir/IR.h"

#include <string>

namespace tilec::gpu {

void runTmaStores(tir::Function &function, const std::string &arch);
void runCoalesce(tir::Function &function);
void runDecomposeBatchedDot(tir::Function &function);
void runAccelerateMatmul(tir::Function &function, const std::string &arch);
/// Each tl.gather gets Triton's warp-local layout for its index and result, before the other
/// layouts are assigned: it is an anchor (OptimizeGatherLayout.cpp).
void runOptimizeGatherLayout(tir::Function &function);
void runAssignLayouts(tir::Function &function);
void runRemoveRedundantConversions(tir::Function &function);
void runHoistConversions(tir::Function &function);
/// Triton's OptimizeThreadLocality reduce rewrite; `arch` tells which loads through tensor
/// descriptors Triton keeps as descriptor loads (from sm_90), which it leaves alone.
void runOptimizeThreadLocality(tir::Function &function, const std::string &arch);
/// A reshape with can_reorder that only a reduction reads keeps its registers
/// (OptimizeReshapeLayout.cpp).
void runOptimizeReshapeLayout(tir::Function &function);
/// Loads feeding tensor-core dots in loops become cp.async copies num_stages - 1 iterations ahead
/// into rings of shared-memory slots (SoftwarePipeliner.cpp), as many as suit `arch`'s SMs. Runs
/// after the layout passes.
void runSoftwarePipelining(tir::Function &function, const std::string &arch);
/// The other loads of side-effect-free loops issued one iteration ahead into registers
/// (PrefetchLoads.cpp). Runs after software pipelining.
void runPrefetchLoads(tir::Function &function);

/// Each convert_layout moves down to just before its first user in its block, where Triton's
/// conversions are (SinkConversions.cpp). Runs last, before lowering.
void runSinkConversions(tir::Function &function);

/// TmaStores (for sm_80: none) and the three above, in order.
void runLayoutPasses(tir::Function &function);

} // namespace tilec::gpu
