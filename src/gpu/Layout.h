// GPU layouts: which thread of a program holds which elements of a tensor.
//
// As in Triton's TritonGPU dialect, a layout is part of a tensor's type. A blocked layout tiles a
// tensor of rank R with, per dimension d:
//   sizePerThread[d]   consecutive elements held by one thread,
//   threadsPerWarp[d]  threads of a warp along d        (their product is 32),
//   warpsPerCTA[d]     warps of the program along d     (their product is num_warps),
//   repsInWarp[d]      times a warp's threads repeat along d before the next warp's elements
//                      (1 unless given; Triton's wgmma accumulator has 2 along M, see below),
// and `order` lists the dimensions from fastest- to slowest-varying when numbering threads and a
// thread's elements; `warpOrder`, where given, numbers the warps instead (Triton's wgmma
// accumulator numbers its lanes along N first and its warps along M first). Along d, a thread's spt
// elements are consecutive, the warp's lanes cover spt*tpw, which repeats repsInWarp times, then
// come the next warps. When the tile (spt*tpw*repsInWarp*wpc) is smaller than the tensor it
// repeats; when larger, several threads hold the same element (broadcast).
//
// A slice layout is the layout of a tensor that lost dimension `dim` of a parent layout (the result
// of a reduction along `dim`, or the operand of expand_dims): element i of the slice is held by the
// threads that hold the parent's elements whose other coordinates equal i's.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace tilec::gpu {

enum class LayoutKind { Blocked, Slice };

struct Layout {
  LayoutKind kind = LayoutKind::Blocked;

  // Blocked
  std::vector<unsigned> sizePerThread;
  std::vector<unsigned> threadsPerWarp;
  std::vector<unsigned> warpsPerCTA;
  std::vector<unsigned> order; // fastest-varying dimension first
  std::vector<unsigned> repsInWarp;
  /// The order in which warps are numbered, fastest first; empty when it is `order`.
  std::vector<unsigned> warpOrder;

  // Slice
  unsigned dim = 0;
  std::shared_ptr<const Layout> parent;

  unsigned rank() const;
  unsigned numWarps() const;

  /// repsInWarp[d] (1 for every dimension of a layout made without it).
  unsigned reps(unsigned d) const { return repsInWarp.empty() ? 1 : repsInWarp[d]; }

  /// The order of the warps (blocked layouts): warpOrder, or order where none is given.
  const std::vector<unsigned> &warpsOrder() const { return warpOrder.empty() ? order : warpOrder; }

  /// "#blocked<{spt=[4], tpw=[32], wpc=[4], order=[0]}>", "#slice<{dim=1, parent=#blocked<...>}>";
  /// a blocked layout with repeats in the warp adds ", rep=[2, 1]", one whose warps are numbered
  /// in another order ", warp_order=[0, 1]".
  std::string str() const;
  bool operator==(const Layout &o) const;
  bool operator!=(const Layout &o) const { return !(*this == o); }
};

using LayoutPtr = std::shared_ptr<const Layout>;

/// A blocked layout; `warpOrder` is kept only where it numbers the warps otherwise than `order`
/// (warps along two dimensions or more), so that layouts of the same threads compare equal.
LayoutPtr makeBlocked(std::vector<unsigned> sizePerThread, std::vector<unsigned> threadsPerWarp,
                      std::vector<unsigned> warpsPerCTA, std::vector<unsigned> order,
                      std::vector<unsigned> repsInWarp = {}, std::vector<unsigned> warpOrder = {});
LayoutPtr makeSlice(unsigned dim, LayoutPtr parent);

/// The default blocked layout for a tensor of `shape` in a program of `numWarps` warps: threads
/// and warps spread along the dimensions in `order` (fastest first), each thread holding
/// `vectorWidth` consecutive elements along order[0] when the shape allows.
LayoutPtr defaultBlockedLayout(const std::vector<int64_t> &shape, unsigned numWarps,
                               unsigned vectorWidth, std::vector<unsigned> order = {});

/// `layout` (blocked, or slices of one) without its warps' repeats (repsInWarp): the same
/// threads, sizes and warps, a tile that many times shorter. The layout itself when it has none,
/// or null for null.
LayoutPtr withoutRepsInWarp(const LayoutPtr &layout);

/// The layout of `trans(x, order)` for x in `layout` (blocked): result dimension i is operand
/// dimension order[i], each thread keeps its elements. Null for other layouts.
LayoutPtr permuteLayout(const LayoutPtr &layout, const std::vector<int64_t> &order);

/// The layout of the partials a `within_thread` reduce along the last axis of a tensor in
/// `layout` (blocked, without repeats in the warp) leaves (gpu/OptimizeThreadLocality.cpp): the
/// slice along a new last dimension of Triton's thread-locality layout, which holds a thread's
/// elements of the axis (sizePerThread[axis] of them at a time) along that new fastest
/// dimension and one element per thread along the axis, whose lanes and warps stay. Null for
/// other layouts.
LayoutPtr threadPartialsLayout(const LayoutPtr &layout);

/// The layout of an mma.sync accumulator (Triton's NVIDIA MMA layout, version 2) for a warp grid of
/// warpsM x warpsN over the [M, N] tile, written as the blocked layout it is:
/// sizePerThread [1, 2], threadsPerWarp [8, 4], repsInWarp [2, 1] (none with one warp along M),
/// warpsPerCTA [warpsM, warpsN], order [1, 0]. Warp (wm, wn) holds, per 16x8 instruction tile,
/// the two column pairs of rows 16*wm + g and 16*wm + g + 8 (g = lane / 4): the m16n8 fragment,
/// as Triton's layout gives them, so that reductions over the accumulator add what Triton's add.
/// Every pass that knows blocked layouts (elementwise ops, reductions, conversions, stores)
/// handles accumulators without a new layout kind. With one warp along M and one along N this
/// is also the wgmma accumulator layout of the same warps (isMmaV3AccumulatorLayout says so too).
LayoutPtr mmaV2AccumulatorLayout(unsigned warpsM, unsigned warpsN);

/// Whether `layout` is an mma.sync accumulator layout; sets the warp grid if so.
bool isMmaV2AccumulatorLayout(const Layout &layout, unsigned *warpsM = nullptr,
                              unsigned *warpsN = nullptr);

/// The layout of a wgmma accumulator (Triton's NVIDIA MMA layout, version 3) on warpsM x warpsN
/// warps: the hardware's. Warp w of a warpgroup holds rows 16w + g and 16w + 8 + g of the
/// instruction's 64 (g = lane / 4); the warps are numbered along M first (Triton's warp order
/// for version 3), so that warps 0-3 form one warpgroup, and warpgroups follow one another along
/// M, then along N, each taking `instructionN` columns (one instruction's), the instructions of
/// the next tile after all warpgroups'. As the blocked layout it is: sizePerThread [1, 2],
/// threadsPerWarp [8, 4], repsInWarp [2, instructionN / 8] (the warp's 8 rows twice: 16 rows per
/// warp; its 8 columns once per 8 of the instruction's, only where warps go along N too),
/// warpsPerCTA [warpsM, warpsN], order [1, 0], warpOrder [0, 1]. A's rows are then in shared
/// memory in their own order, so one TMA box can fill its tile.
LayoutPtr mmaV3AccumulatorLayout(unsigned warpsM, unsigned warpsN = 1, unsigned instructionN = 8);

/// Whether `layout` is a wgmma accumulator layout; sets its warps along M and N if so.
bool isMmaV3AccumulatorLayout(const Layout &layout, unsigned *warpsM = nullptr,
                              unsigned *warpsN = nullptr);

/// The layout of an FMA dot's [M, N] result: each thread holds a block of about
/// M*N/threads elements, as square as the shape allows (more multiply-adds per operand read).
LayoutPtr dotFmaLayout(const std::vector<int64_t> &shape, unsigned numWarps);

} // namespace tilec::gpu
