// A loop slice: the ops of a `for` body that compute some of its values (a load's pointer, mask
// and `other`) from the induction variable and the loop-carried values, cloned into another
// iteration. The software pipeliner and prefetch-loads issue later iterations' loads with it, and
// pick their loops with the two functions after it.
#pragma once

#include "tir/Builder.h"
#include "tir/IR.h"

#include <map>
#include <optional>
#include <set>
#include <utility>
#include <vector>

namespace tilec::gpu {

class LoopSlice {
public:
  /// The slice of `body` that computes `roots`, closed over the loop-carried values it reads
  /// (with what the loop yields for them); none when it cannot be cloned into another iteration
  /// (it has loads, dots, ops with regions or side effects).
  static std::optional<LoopSlice> build(tir::Block &body, const std::vector<tir::Value *> &roots);

  /// Iteration arguments (body argument index >= 1) the slice reads, in order.
  const std::vector<unsigned> &carried() const { return carried_; }

  /// Clones the slice at `builder` for the iteration whose induction variable is `iv` and whose
  /// carried() values are `state`; returns the map from the body's values to their clones.
  std::map<const tir::Value *, tir::Value *> clone(tir::Builder &builder, tir::Value *iv,
                                                   const std::vector<tir::Value *> &state) const;

  /// The clone of `value` in `map`, or `value` itself (defined outside the slice).
  static tir::Value *mapped(const std::map<const tir::Value *, tir::Value *> &map,
                            tir::Value *value);

private:
  explicit LoopSlice(tir::Block &body) : body_(&body) {}
  tir::Block *body_;
  std::set<const tir::Operation *> ops_;
  std::vector<unsigned> carried_;
};

/// The `for` loops of `function` that ask for pipelining, with their num_stages (2 or more): a
/// loop's tl.range(..., num_stages=N) overrides the kernel's num_stages; 1 asks for none.
std::vector<std::pair<tir::Operation *, unsigned>> pipelinedLoops(tir::Function &function);

/// The loads Triton's software pipeliner (AssignLatencies) turns into asynchronous copies to
/// shared memory, in the loops of pipelinedLoops: Triton's layout pass after the pipeliner sees
/// a local_load there (no anchor, cheap to read again in another layout). AssignLayouts ranks
/// them below the other anchors; RemoveRedundantConversions' wide slices read them converted.
/// `skipFarCarriedLoops` leaves out loops that yield a value they did not compute (a distance of
/// more than one iteration). The two passes differ there: RemoveRedundantConversions skips such
/// loops; AssignLayouts keeps them, which fla's chunk_gated_delta_rule fwd_h / dhu_blockdim64
/// launches need to stay bit-equal with Triton (H200, session 36). Which is Triton's rule for
/// both is not settled yet.
std::set<const tir::Operation *> tritonPipelinedLoads(tir::Function &function,
                                                      bool skipFarCarriedLoops);

} // namespace tilec::gpu
