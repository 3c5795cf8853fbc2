// The lowering of scans (tl.cumsum, tl.cumprod, tl.associative_scan) and of the combine regions
// that scans and reductions with user functions carry.
//
// A scan runs along one axis of a blocked (or sliced) layout, in the stages and the order of
// combination of Triton's ScanOp lowering, so that floating-point results match it:
//   1. within each thread, along each run of consecutive elements it holds ("chunk"), in order;
//   2. across the lanes of a warp, on each run's total: a Hillis-Steele scan with shuffles-up by
//      1, 2, 4... lanes, acc = combine(shuffled, acc) where the source lane exists;
//   3. across warps (when several hold distinct parts of the axis) through shared memory: the last
//      lane of each warp stores its runs' totals, and each thread folds the totals of the warps
//      and chunks before its own into a carry, left to right;
//   4. each run's total becomes combine(carry, total); its other elements combine the prefix
//      before the run (the previous lane's total, or the carry in the first lane) with their
//      in-thread prefix.
// A reverse scan is the same on the mirrored axis: runs, lanes, warps and chunks are visited from
// the end, and shuffles go down instead of up, as Triton's flipping of the values amounts to.
#include "codegen/KernelLowering.h"

#include <map>

namespace tilec::codegen::detail {

Values KernelLowering::combineValues(const Operation &op, const Values &lhs, const Values &rhs) {
  if (op.numRegions() == 0)
    return {combine(op.strAttr("kind"), op.operand(0)->type().elem, lhs[0], rhs[0])};
  // The combine function, inlined on scalars: its region's ops are lowered again at each use.
  const tir::Block &body = op.region(0).block();
  size_t n = lhs.size();
  for (size_t i = 0; i < n; ++i) {
    values_[body.argument(static_cast<unsigned>(i))] = {lhs[i]};
    values_[body.argument(static_cast<unsigned>(i + n))] = {rhs[i]};
  }
  for (const auto &inner : body.ops())
    if (inner->code() != OpCode::Yield)
      lowerOp(*inner);
  Values out;
  for (const tir::Value *v : body.terminator()->operands())
    out.push_back(get(v)[0]);
  return out;
}

Values KernelLowering::selectValues(llvm::Value *cond, const Values &ifTrue,
                                    const Values &ifFalse) {
  Values out;
  for (size_t i = 0; i < ifTrue.size(); ++i)
    out.push_back(builder_.CreateSelect(cond, ifTrue[i], ifFalse[i]));
  return out;
}

void KernelLowering::lowerScan(const Operation &op) {
  const tir::Type &type = op.operand(0)->type();
  if (type.isScalar())
    unsupported(op, "scanning a scalar");
  for (const tir::Value *v : op.operands())
    if (v->type().elem.isFp8() || v->type().elem.isPointer())
      unsupported(op, "scans of " + v->type().elem.tritonName());
  unsigned n = op.numOperands();
  unsigned axis = static_cast<unsigned>(op.intAttr("axis"));
  bool reverse = op.hasAttr("reverse") && op.boolAttr("reverse");
  Distribution dist = distributionOf(type);
  ScanShape shape = scanShape(op);
  const unsigned S = shape.inThread, L = shape.lanes, W = shape.warps, R = shape.chunks;
  const unsigned spt = dist.spt(axis);

  // The thread's elements, the operands side by side, grouped by line (the indices along the
  // other dimensions); elems[line][k] is the element with index k along the axis.
  std::vector<Values> vals(dist.numElements());
  for (unsigned i = 0; i < n; ++i) {
    const Values &in = get(op.operand(i));
    for (unsigned e = 0; e < dist.numElements(); ++e)
      vals[e].push_back(in[e]);
  }
  std::map<std::vector<unsigned>, unsigned> lineOf;
  std::vector<std::vector<unsigned>> elems;
  std::vector<unsigned> firstOfLine;
  for (unsigned e = 0; e < dist.numElements(); ++e) {
    std::vector<unsigned> index = dist.multiIndex(e);
    unsigned k = index[axis];
    index.erase(index.begin() + axis);
    auto [it, inserted] = lineOf.try_emplace(index, static_cast<unsigned>(elems.size()));
    if (inserted) {
      elems.emplace_back(dist.elemsPerThread[axis]);
      firstOfLine.push_back(e);
    }
    elems[it->second][k] = e;
  }
  const unsigned lines = static_cast<unsigned>(elems.size());
  // Positions in the order of the scan: chunk q, element t of a run.
  auto chunkAt = [&](unsigned q) { return reverse ? R - 1 - q : q; };
  auto runElement = [&](unsigned line, unsigned q, unsigned t) {
    unsigned j = reverse ? S - 1 - t : t;
    return elems[line][chunkAt(q) * spt + j];
  };

  // The thread's lane and warp along the axis, counted in the scan's order.
  const auto &[lanes, warps] = threadIndicesFor(dist.root);
  unsigned rootAxis = dist.rootDim[axis];
  unsigned laneStride = 1;
  for (unsigned r : dist.root->order) {
    if (r == rootAxis)
      break;
    laneStride *= dist.root->threadsPerWarp[r];
  }
  llvm::Value *lanePos = builder_.CreateAnd(lanes[rootAxis], builder_.getInt32(L - 1));
  if (reverse)
    lanePos = builder_.CreateSub(builder_.getInt32(L - 1), lanePos);
  auto fromPrevious = [&](const Values &v, unsigned delta) {
    Values out;
    for (llvm::Value *x : v)
      out.push_back(shuffleUpDown(x, delta * laneStride, /*up=*/!reverse));
    return out;
  };

  // 1. Within the thread: each run, in order.
  for (unsigned line = 0; line < lines; ++line)
    for (unsigned q = 0; q < R; ++q) {
      Values acc = vals[runElement(line, q, 0)];
      for (unsigned t = 1; t < S; ++t) {
        unsigned e = runElement(line, q, t);
        acc = combineValues(op, acc, vals[e]);
        vals[e] = acc;
      }
    }

  // 2. Across the lanes of the warp: the runs' totals.
  std::vector<std::vector<Values>> totals(lines, std::vector<Values>(R));
  for (unsigned line = 0; line < lines; ++line)
    for (unsigned q = 0; q < R; ++q) {
      Values t = vals[runElement(line, q, S - 1)];
      for (unsigned delta = 1; delta < L; delta *= 2) {
        Values incoming = fromPrevious(t, delta);
        llvm::Value *has = builder_.CreateICmpUGE(lanePos, builder_.getInt32(delta));
        t = selectValues(has, combineValues(op, incoming, t), t);
      }
      totals[line][q] = t;
    }

  // 3. Across warps: carries[line][q] is what precedes this warp's part of chunk q; present
  //    tells (for chunk 0) whether anything does.
  std::vector<std::vector<Values>> carries(lines, std::vector<Values>(R));
  llvm::Value *firstChunkHasCarry = nullptr;
  if (W > 1) {
    llvm::Value *warpPos = builder_.CreateAnd(warps[rootAxis], builder_.getInt32(W - 1));
    if (reverse)
      warpPos = builder_.CreateSub(builder_.getInt32(W - 1), warpPos);
    firstChunkHasCarry = builder_.CreateICmpNE(warpPos, builder_.getInt32(0));
    // The line's row-major number among the lines of the tensor.
    std::vector<llvm::Value *> lineNumber(lines);
    for (unsigned line = 0; line < lines; ++line) {
      std::vector<unsigned> index = dist.multiIndex(firstOfLine[line]);
      llvm::Value *linear = builder_.getInt32(0);
      for (unsigned d = 0; d < dist.rank(); ++d) {
        if (d == axis)
          continue;
        linear = builder_.CreateAdd(
            builder_.CreateMul(linear, builder_.getInt32(static_cast<uint32_t>(dist.shape[d]))),
            coordinate(dist, d, index[d]));
      }
      lineNumber[line] = linear;
    }
    auto slotPointer = [&](unsigned i, unsigned line, unsigned q, llvm::Value *warp) {
      llvm::Type *memType = memoryType(op.operand(i)->type().elem);
      llvm::Value *slot = builder_.CreateMul(lineNumber[line], builder_.getInt32(R));
      slot = builder_.CreateAdd(slot, builder_.getInt32(q));
      slot = builder_.CreateAdd(builder_.CreateMul(slot, builder_.getInt32(W)), warp);
      return builder_.CreateGEP(memType, sharedAt(scanOperandOffset(op, i)), slot);
    };
    beginSharedWrite();
    llvm::Value *lastLane = builder_.CreateICmpEQ(lanePos, builder_.getInt32(L - 1));
    for (unsigned line = 0; line < lines; ++line)
      for (unsigned q = 0; q < R; ++q)
        for (unsigned i = 0; i < n; ++i) {
          llvm::Value *v = toSharedElement(totals[line][q][i], op.operand(i)->type().elem);
          storeSharedIf(slotPointer(i, line, q, warpPos), v, lastLane);
        }
    barrier();
    for (unsigned line = 0; line < lines; ++line) {
      Values acc;
      for (unsigned q = 0; q < R; ++q) {
        Values masked = acc;
        for (unsigned w = 0; w < W; ++w) {
          Values partial;
          for (unsigned i = 0; i < n; ++i) {
            const DType &elem = op.operand(i)->type().elem;
            llvm::Value *v = builder_.CreateLoad(memoryType(elem),
                                                 slotPointer(i, line, q, builder_.getInt32(w)));
            partial.push_back(fromSharedElement(v, elem));
          }
          if (acc.empty()) {
            acc = masked = partial;
            continue;
          }
          acc = combineValues(op, acc, partial);
          masked =
              selectValues(builder_.CreateICmpUGE(warpPos, builder_.getInt32(w + 1)), acc, masked);
        }
        carries[line][q] = masked;
      }
    }
    sharedInUse_ = true;
  }

  // 4. Carries into the runs: totals first, then the runs' other elements.
  for (unsigned line = 0; line < lines; ++line) {
    Values running; // W == 1: everything before chunk q
    for (unsigned q = 0; q < R; ++q) {
      Values carry;
      llvm::Value *present = nullptr; // null: there is a carry iff `carry` is not empty
      if (W > 1) {
        carry = carries[line][q];
        if (q == 0)
          present = firstChunkHasCarry;
      } else if (q > 0) {
        carry = running;
      }
      const Values &t = totals[line][q];
      Values full = t;
      if (!carry.empty()) {
        full = combineValues(op, carry, t);
        if (present)
          full = selectValues(present, full, t);
      }
      if (W == 1 && q + 1 < R) {
        // The chunk's total, from the lane that ends it.
        if (L > 1) {
          llvm::Value *last = builder_.CreateOr(
              builder_.CreateAnd(laneId_, builder_.getInt32(~((L - 1) * laneStride))),
              builder_.getInt32((reverse ? 0 : L - 1) * laneStride));
          running.clear();
          for (llvm::Value *x : full)
            running.push_back(shuffleIndex(x, last));
        } else {
          running = full;
        }
      }
      if (S > 1) {
        // The prefix before this thread's run, and whether there is one.
        Values before;
        llvm::Value *hasBefore = nullptr; // null: always, when `before` is not empty
        if (L > 1) {
          Values previous = fromPrevious(full, 1);
          llvm::Value *firstLane = builder_.CreateICmpEQ(lanePos, builder_.getInt32(0));
          if (carry.empty()) {
            before = previous;
            hasBefore = builder_.CreateNot(firstLane);
          } else {
            before = selectValues(firstLane, carry, previous);
            if (present)
              hasBefore = builder_.CreateOr(builder_.CreateNot(firstLane), present);
          }
        } else if (!carry.empty()) {
          before = carry;
          hasBefore = present;
        }
        if (!before.empty())
          for (unsigned t = 0; t + 1 < S; ++t) {
            unsigned e = runElement(line, q, t);
            Values c = combineValues(op, before, vals[e]);
            vals[e] = hasBefore ? selectValues(hasBefore, c, vals[e]) : c;
          }
      }
      vals[runElement(line, q, S - 1)] = full;
    }
  }

  // Copies of elements (a run longer than the axis) take the value of their original.
  for (unsigned line = 0; line < lines; ++line)
    for (unsigned k = 0; k < dist.elemsPerThread[axis]; ++k)
      if (k % spt >= S)
        vals[elems[line][k]] = vals[elems[line][(k / spt) * spt + (k % spt) % S]];

  for (unsigned i = 0; i < n; ++i) {
    Values result;
    for (const Values &v : vals)
      result.push_back(v[i]);
    values_[op.result(i)] = result;
  }
}

} // namespace tilec::codegen::detail
