// Axis info: what is known, per dimension, about the integer and pointer values of a kernel.
//
// As in Triton's AxisInfo analysis, three facts are tracked for each dimension d of a value:
//   contiguity[d]   the length of the runs of consecutive values along d (offsets 0,1,2,3 -> 4);
//   divisibility[d] the largest power of two known to divide the first value of each run
//                   (for pointers, in bytes: it is the run's alignment);
//   constancy[d]    the length of the runs of equal values along d.
// A scalar is treated as a tensor of one dimension and one element.
//
// The memory passes ask one question: how many consecutive elements of a pointer tensor can one
// vector instruction access (`vectorWidth`).
#pragma once

#include "tir/IR.h"

#include <cstdint>
#include <optional>
#include <unordered_map>
#include <vector>

namespace tilec::analysis {

struct AxisInfo {
  std::vector<int64_t> contiguity;
  std::vector<int64_t> divisibility;
  std::vector<int64_t> constancy;
  /// Set when every element has this same integer value.
  std::optional<int64_t> constant;

  unsigned rank() const { return static_cast<unsigned>(contiguity.size()); }

  /// Nothing known: runs of length one, divisible by one.
  static AxisInfo unknown(unsigned rank);
  /// The meet of two facts (what holds for both): the gcd of every entry.
  static AxisInfo meet(const AxisInfo &a, const AxisInfo &b);

  bool operator==(const AxisInfo &o) const {
    return contiguity == o.contiguity && divisibility == o.divisibility &&
           constancy == o.constancy && constant == o.constant;
  }
  bool operator!=(const AxisInfo &o) const { return !(*this == o); }
};

/// The largest divisibility tracked: the divisibility of zero.
constexpr int64_t kMaxDivisibility = int64_t(1) << 30;

/// The largest power of two dividing `value` (kMaxDivisibility for zero).
int64_t highestPowerOf2Divisor(int64_t value);

class AxisInfoAnalysis {
public:
  /// Analyses every value of `function`; function arguments take their alignment (pointers) or
  /// divisibility (integers) from `Function::params`.
  explicit AxisInfoAnalysis(const tir::Function &function);

  /// The facts about `value`; values the analysis never saw (made after it ran) are unknown.
  AxisInfo info(const tir::Value *value) const;

  /// How many consecutive elements of the pointer tensor `ptr` along `dim` one vector instruction
  /// can access: the contiguity along `dim`, limited by the alignment and by 16 bytes.
  unsigned vectorWidth(const tir::Value *ptr, unsigned dim) const;

  /// Which of two equally contiguous dimensions comes first in contiguityOrder.
  enum class Ties {
    FirstDimFirst, ///< Triton 3.6's Coalesce: a [1, 1] pointer gets order [0, 1].
    LastDimFirst,  ///< Row-major: a [1, 1] pointer gets order [1, 0].
  };
  /// The dimensions of `value` from the most to the least contiguous, ties ordered by `ties`.
  std::vector<unsigned> contiguityOrder(const tir::Value *value,
                                        Ties ties = Ties::FirstDimFirst) const;

  /// The length of the runs of equal mask values along `dim` (1 for an unknown mask).
  unsigned maskConstancy(const tir::Value *mask, unsigned dim) const;

private:
  std::unordered_map<const tir::Value *, AxisInfo> infos_;

  void visitBlock(const tir::Block &block);
  void visitOp(const tir::Operation &op);
  void visitFor(const tir::Operation &op);
  void visitWhile(const tir::Operation &op);
  void set(const tir::Value *value, AxisInfo info) { infos_[value] = std::move(info); }
};

} // namespace tilec::analysis
