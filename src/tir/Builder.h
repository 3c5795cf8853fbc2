// Creates operations at an insertion point. The builder does no type inference beyond the obvious
// (elementwise results take their first operand's type); sema decides types, the verifier checks.
#pragma once

#include "tir/IR.h"

namespace tilec::tir {

class Builder {
public:
  Builder() = default;
  explicit Builder(Block &block) { setInsertionPointToEnd(block); }

  void setInsertionPointToEnd(Block &block) {
    block_ = &block;
    pos_ = block.ops().end();
  }
  /// Inserts before `op`.
  void setInsertionPoint(Operation *op) {
    block_ = op->parentBlock();
    pos_ = block_->find(op);
  }
  Block *block() const { return block_; }

  /// Where the builder inserts; saved around building an operation's region.
  struct InsertPoint {
    Block *block;
    Block::OpList::iterator pos;
  };
  InsertPoint insertionPoint() const { return {block_, pos_}; }
  void restoreInsertionPoint(InsertPoint ip) {
    block_ = ip.block;
    pos_ = ip.pos;
  }

  /// How many operations this builder has created: sema bounds what unrolling and inlining make.
  size_t numCreated() const { return numCreated_; }

  void setLoc(SourceLoc loc) { loc_ = loc; }
  SourceLoc loc() const { return loc_; }

  /// The general form: an operation with these operands and result types.
  Operation *create(OpCode code, std::vector<Value *> operands, std::vector<Type> resultTypes);
  /// The same with one result, returned.
  Value *createValue(OpCode code, std::vector<Value *> operands, Type resultType);

  // Conveniences for the common cases.
  Value *intConstant(int64_t value, Type type);
  Value *floatConstant(double value, Type type);
  Value *programId(unsigned axis);
  Value *numPrograms(unsigned axis);
  Value *makeRange(int64_t start, int64_t end);
  Value *splat(Value *scalar, std::vector<int64_t> shape);
  Value *broadcast(Value *tensor, std::vector<int64_t> shape);
  Value *expandDims(Value *tensor, unsigned axis);
  /// An elementwise binary operation whose result has `lhs`'s type (or i1 for Cmp).
  Value *binary(OpCode code, Value *lhs, Value *rhs);
  Value *cmp(const std::string &predicate, Value *lhs, Value *rhs);
  Value *select(Value *cond, Value *ifTrue, Value *ifFalse);
  Value *unary(OpCode code, Value *operand);
  Value *cast(Value *value, DType to);
  Value *addPtr(Value *ptr, Value *offset);
  /// A boolean tensor of `shape`, true where the index along `axis` is `k`.
  Value *indexIs(const std::vector<int64_t> &shape, unsigned axis, int64_t k);
  /// Element `k` along `axis` of `x`, the axis removed (tl.split's halves, a repeat's first
  /// copy, a batch of a 3-D dot): a sum (xor for integers) in which every other element is -0.0
  /// (0), so exact for every value, -0.0 and NaN included.
  Value *pickAlong(Value *x, unsigned axis, int64_t k);

private:
  Block *block_ = nullptr;
  Block::OpList::iterator pos_;
  SourceLoc loc_;
  size_t numCreated_ = 0;
};

} // namespace tilec::tir
