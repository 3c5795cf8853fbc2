// VectorCombine's scalarisation of vector loads read only lane by lane, done in linear time (see
// ScalarizeLoadExtracts.cpp for why).
#pragma once

namespace llvm {
class DominatorTree;
class Function;
class TargetTransformInfo;
} // namespace llvm

namespace tilec::codegen {

/// LLVM 19's VectorCombine::scalarizeLoadExtract, done for every vector load of `function` in
/// one linear walk, with VectorCombine's decisions and output: a load whose users are all
/// extractelements of constant lanes in its block, with nothing that may write memory among the
/// (at most 30) instructions from the load to its last extract, and whose scalar loads cost less,
/// becomes one `load T` per extract, at the extract, through getelementptr <N x T>, 0, lane, with
/// the vector's alignment reduced to the lane's offset. VectorCombine itself is quadratic here:
/// each rewrite invalidates the block's instruction order, and the next load's comesBefore
/// renumbers the whole block (75 s of TritonBench's chunk_retention_bwd_kernel_dqkv, one 50k-
/// instruction block, at --num-warps 1). Run just before each VectorCombinePass, this leaves it
/// nothing of that kind to do. A load with a variable lane is left to VectorCombine.
/// Returns whether it changed `function`.
bool scalarizeLoadExtracts(llvm::Function &function, const llvm::TargetTransformInfo &tti,
                           const llvm::DominatorTree &dominators);

} // namespace tilec::codegen
