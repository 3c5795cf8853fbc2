// Kernels built by hand with tir::Builder, shared by the analysis, gpu and codegen unit tests.
// Each mirrors a seed kernel the way sema lowers it (no layouts yet).
#pragma once

#include "tir/Builder.h"

#include <cmath>
#include <memory>

namespace tilec::testkernels {

using namespace tilec::tir;

inline DType i32() {
  return DType::scalar(ScalarKind::I32);
}
inline DType f32() {
  return DType::scalar(ScalarKind::F32);
}
inline DType f16() {
  return DType::scalar(ScalarKind::F16);
}
inline DType ptrTo(ScalarKind k) {
  return DType::pointer(k);
}

/// The seed's add_kernel: out[i] = x[i] + y[i] for i < n, BLOCK elements per program.
inline Function *addKernel(Module &m, int64_t block = 1024, unsigned alignment = 16,
                           unsigned nDivisibility = 0) {
  Function *f = m.addFunction("add_kernel", SourceLoc{1, 1, 1});
  Block &body = f->body();
  Value *x = body.addArgument(Type(ptrTo(ScalarKind::F32)));
  Value *y = body.addArgument(Type(ptrTo(ScalarKind::F32)));
  Value *out = body.addArgument(Type(ptrTo(ScalarKind::F32)));
  Value *n = body.addArgument(Type(i32()));
  f->params = {{"x_ptr", x->type().elem, alignment},
               {"y_ptr", y->type().elem, alignment},
               {"output_ptr", out->type().elem, alignment},
               {"n_elements", i32(), 0, nDivisibility}};
  f->constexprs = {{"BLOCK_SIZE", std::to_string(block)}};
  Builder b(body);
  b.setLoc(SourceLoc{1, 3, 5});
  Value *pid = b.programId(0);
  Value *start = b.binary(OpCode::Mul, pid, b.intConstant(block, Type(i32())));
  Value *offs = b.binary(OpCode::Add, b.splat(start, {block}), b.makeRange(0, block));
  offs->setNameHint("offsets");
  Value *mask = b.cmp("lt", offs, b.splat(n, {block}));
  mask->setNameHint("mask");
  Value *xv = b.createValue(OpCode::Load, {b.addPtr(b.splat(x, {block}), offs), mask},
                            Type(f32(), {block}));
  Value *yv = b.createValue(OpCode::Load, {b.addPtr(b.splat(y, {block}), offs), mask},
                            Type(f32(), {block}));
  Value *sum = b.binary(OpCode::Add, xv, yv);
  b.create(OpCode::Store, {b.addPtr(b.splat(out, {block}), offs), sum, mask}, {});
  b.create(OpCode::Return, {}, {});
  return f;
}

/// A 2-D tile kernel: out[m, n] = x[m, n] * 2 over an M x N row-major matrix of row stride
/// `stride`, masked at the edges, BM x BN per program along axis 0.
inline Function *scale2dKernel(Module &m, int64_t bm = 32, int64_t bn = 64) {
  Function *f = m.addFunction("scale2d_kernel", SourceLoc{1, 1, 1});
  Block &body = f->body();
  Value *x = body.addArgument(Type(ptrTo(ScalarKind::F32)));
  Value *out = body.addArgument(Type(ptrTo(ScalarKind::F32)));
  Value *M = body.addArgument(Type(i32()));
  Value *N = body.addArgument(Type(i32()));
  Value *stride = body.addArgument(Type(i32()));
  f->params = {{"x_ptr", x->type().elem, 16},
               {"out_ptr", out->type().elem, 16},
               {"M", i32(), 0, 0},
               {"N", i32(), 0, 16},
               {"stride", i32(), 0, 16}};
  Builder b(body);
  b.setLoc(SourceLoc{1, 4, 3});
  Value *pid = b.programId(0);
  Value *offsM =
      b.binary(OpCode::Add, b.splat(b.binary(OpCode::Mul, pid, b.intConstant(bm, i32())), {bm}),
               b.makeRange(0, bm));
  Value *offsN = b.makeRange(0, bn);
  Value *rows = b.broadcast(b.expandDims(offsM, 1), {bm, bn});
  Value *cols = b.broadcast(b.expandDims(offsN, 0), {bm, bn});
  Value *offs = b.binary(OpCode::Add, b.binary(OpCode::Mul, rows, b.splat(stride, {bm, bn})), cols);
  Value *mask = b.binary(OpCode::And, b.cmp("lt", rows, b.splat(M, {bm, bn})),
                         b.cmp("lt", cols, b.splat(N, {bm, bn})));
  Operation *load = b.create(
      OpCode::Load,
      {b.addPtr(b.splat(x, {bm, bn}), offs), mask, b.floatConstant(0.0, Type(f32(), {bm, bn}))},
      {Type(f32(), {bm, bn})});
  load->setAttr("has_mask", true);
  load->setAttr("has_other", true);
  Value *scaled =
      b.binary(OpCode::Mul, load->result(), b.floatConstant(2.0, Type(f32(), {bm, bn})));
  b.create(OpCode::Store, {b.addPtr(b.splat(out, {bm, bn}), offs), scaled, mask}, {});
  b.create(OpCode::Return, {}, {});
  return f;
}

/// Row softmax over BLOCK columns, one row per program (the seed's softmax kernel).
inline Function *softmaxKernel(Module &m, int64_t block = 1024) {
  Function *f = m.addFunction("softmax_kernel", SourceLoc{1, 1, 1});
  Block &body = f->body();
  Value *out = body.addArgument(Type(ptrTo(ScalarKind::F32)));
  Value *in = body.addArgument(Type(ptrTo(ScalarKind::F32)));
  Value *inStride = body.addArgument(Type(i32()));
  Value *outStride = body.addArgument(Type(i32()));
  Value *nCols = body.addArgument(Type(i32()));
  f->params = {{"output_ptr", out->type().elem, 16},
               {"input_ptr", in->type().elem, 16},
               {"input_row_stride", i32(), 0, 16},
               {"output_row_stride", i32(), 0, 16},
               {"n_cols", i32(), 0, 0}};
  Builder b(body);
  b.setLoc(SourceLoc{1, 7, 9});
  Value *row = b.programId(0);
  Value *rowStart = b.addPtr(in, b.binary(OpCode::Mul, row, inStride));
  Value *cols = b.makeRange(0, block);
  Value *mask = b.cmp("lt", cols, b.splat(nCols, {block}));
  Operation *load = b.create(OpCode::Load,
                             {b.addPtr(b.splat(rowStart, {block}), cols), mask,
                              b.floatConstant(-INFINITY, Type(f32(), {block}))},
                             {Type(f32(), {block})});
  Value *x = load->result();
  Operation *maxOp = b.create(OpCode::Reduce, {x}, {Type(f32())});
  maxOp->setAttr("kind", std::string("max"));
  maxOp->setAttr("axis", int64_t(0));
  Value *shifted = b.binary(OpCode::Sub, x, b.splat(maxOp->result(), {block}));
  Value *num = b.unary(OpCode::Exp, shifted);
  Operation *sumOp = b.create(OpCode::Reduce, {num}, {Type(f32())});
  sumOp->setAttr("kind", std::string("sum"));
  sumOp->setAttr("axis", int64_t(0));
  Value *y = b.binary(OpCode::Div, num, b.splat(sumOp->result(), {block}));
  Value *outStart = b.addPtr(out, b.binary(OpCode::Mul, row, outStride));
  b.create(OpCode::Store, {b.addPtr(b.splat(outStart, {block}), cols), y, mask}, {});
  b.create(OpCode::Return, {}, {});
  return f;
}

/// Sums of each row of an R x C tile (reduce along axis 1 of a 2-D tensor) and the tile's max.
inline Function *rowSumKernel(Module &m, int64_t rows = 16, int64_t cols = 128,
                              const char *kind = "sum") {
  Function *f = m.addFunction("row_reduce_kernel", SourceLoc{1, 1, 1});
  Block &body = f->body();
  Value *x = body.addArgument(Type(ptrTo(ScalarKind::F32)));
  Value *out = body.addArgument(Type(ptrTo(ScalarKind::F32)));
  f->params = {{"x_ptr", x->type().elem, 16}, {"out_ptr", out->type().elem, 16}};
  Builder b(body);
  b.setLoc(SourceLoc{1, 2, 2});
  Value *r = b.makeRange(0, rows);
  Value *c = b.makeRange(0, cols);
  Value *offs = b.binary(OpCode::Add,
                         b.binary(OpCode::Mul, b.broadcast(b.expandDims(r, 1), {rows, cols}),
                                  b.intConstant(cols, Type(i32(), {rows, cols}))),
                         b.broadcast(b.expandDims(c, 0), {rows, cols}));
  Value *tile = b.createValue(OpCode::Load, {b.addPtr(b.splat(x, {rows, cols}), offs)},
                              Type(f32(), {rows, cols}));
  Operation *red = b.create(OpCode::Reduce, {tile}, {Type(f32(), {rows})});
  red->setAttr("kind", std::string(kind));
  red->setAttr("axis", int64_t(1));
  b.create(OpCode::Store, {b.addPtr(b.splat(out, {rows}), r), red->result()}, {});
  b.create(OpCode::Return, {}, {});
  return f;
}

/// acc = 0; for k in range(0, n, 1): acc += x[k*BLOCK + arange] ; out[arange] = acc
inline Function *loopKernel(Module &m, int64_t block = 256) {
  Function *f = m.addFunction("loop_kernel", SourceLoc{1, 1, 1});
  Block &body = f->body();
  Value *x = body.addArgument(Type(ptrTo(ScalarKind::F32)));
  Value *out = body.addArgument(Type(ptrTo(ScalarKind::F32)));
  Value *n = body.addArgument(Type(i32()));
  f->params = {
      {"x_ptr", x->type().elem, 16}, {"out_ptr", out->type().elem, 16}, {"n", i32(), 0, 0}};
  Builder b(body);
  b.setLoc(SourceLoc{1, 5, 5});
  Value *offs = b.makeRange(0, block);
  Value *zero = b.floatConstant(0.0, Type(f32(), {block}));
  Value *ptrs = b.addPtr(b.splat(x, {block}), offs);
  Operation *loop =
      b.create(OpCode::For, {b.intConstant(0, i32()), n, b.intConstant(1, i32()), zero, ptrs},
               {Type(f32(), {block}), ptrs->type()});
  Block &loopBody = loop->addRegion().block();
  Value *iv = loopBody.addArgument(Type(i32()));
  Value *acc = loopBody.addArgument(Type(f32(), {block}));
  Value *p = loopBody.addArgument(ptrs->type());
  (void)iv;
  Builder lb(loopBody);
  Value *v = lb.createValue(OpCode::Load, {p}, Type(f32(), {block}));
  Value *next = lb.binary(OpCode::Add, acc, v);
  Value *nextPtr = lb.addPtr(p, lb.splat(lb.intConstant(block, i32()), {block}));
  lb.create(OpCode::Yield, {next, nextPtr}, {});
  b.create(OpCode::Store, {b.addPtr(b.splat(out, {block}), offs), loop->result(0)}, {});
  b.create(OpCode::Return, {}, {});
  return f;
}

/// `ptr + rows[:, None] * rowStride + cols[None, :] * colStride` for rows of `r` and cols of `c`
/// (strides: scalar values, or null for 1).
inline Value *tilePointers(Builder &b, Value *ptr, Value *rows, Value *cols, Value *rowStride,
                           Value *colStride) {
  int64_t nr = rows->type().shape[0], nc = cols->type().shape[0];
  std::vector<int64_t> shape{nr, nc};
  Value *r = b.broadcast(b.expandDims(rows, 1), shape);
  Value *c = b.broadcast(b.expandDims(cols, 0), shape);
  if (rowStride)
    r = b.binary(OpCode::Mul, r, b.splat(rowStride, shape));
  if (colStride)
    c = b.binary(OpCode::Mul, c, b.splat(colStride, shape));
  return b.addPtr(b.splat(ptr, shape), b.binary(OpCode::Add, r, c));
}

/// `start * block + arange(0, block)`.
inline Value *blockOffsets(Builder &b, Value *start, int64_t block) {
  return b.binary(OpCode::Add,
                  b.splat(b.binary(OpCode::Mul, start, b.intConstant(block, Type(i32()))), {block}),
                  b.makeRange(0, block));
}

/// `(rows[:, None] < R) & (cols[None, :] < C)`.
inline Value *tileMask(Builder &b, Value *rows, Value *cols, Value *R, Value *C) {
  int64_t nr = rows->type().shape[0], nc = cols->type().shape[0];
  std::vector<int64_t> shape{nr, nc};
  return b.binary(OpCode::And,
                  b.cmp("lt", b.broadcast(b.expandDims(rows, 1), shape), b.splat(R, shape)),
                  b.cmp("lt", b.broadcast(b.expandDims(cols, 0), shape), b.splat(C, shape)));
}

/// The seed's Transpose2D-1 (tl.trans) with stride_xn = stride_ym = 1 bound as constexprs:
/// x is M x N, y is N x M; each program moves a bm x bn tile.
inline Function *transposeTransKernel(Module &m, ScalarKind elem, int64_t bm, int64_t bn,
                                      unsigned numWarps = 4) {
  Function *f = m.addFunction("transpose_kernel", SourceLoc{1, 1, 1});
  f->numWarps = numWarps;
  Block &body = f->body();
  Value *x = body.addArgument(Type(ptrTo(elem)));
  Value *y = body.addArgument(Type(ptrTo(elem)));
  Value *M = body.addArgument(Type(i32()));
  Value *N = body.addArgument(Type(i32()));
  Value *strideXm = body.addArgument(Type(i32()));
  Value *strideYn = body.addArgument(Type(i32()));
  f->params = {{"x_ptr", x->type().elem, 16},   {"y_ptr", y->type().elem, 16},
               {"M", i32(), 0, 16},             {"N", i32(), 0, 16},
               {"stride_xm", i32(), 0, 16},     {"stride_yn", i32(), 0, 16}};
  Builder b(body);
  b.setLoc(SourceLoc{1, 10, 5});
  Value *offM = blockOffsets(b, b.programId(0), bm);
  Value *offN = blockOffsets(b, b.programId(1), bn);
  Value *xv = b.createValue(OpCode::Load,
                            {tilePointers(b, x, offM, offN, strideXm, nullptr),
                             tileMask(b, offM, offN, M, N)},
                            Type(DType::scalar(elem), {bm, bn}));
  Operation *trans = b.create(OpCode::Trans, {xv}, {Type(DType::scalar(elem), {bn, bm})});
  trans->setAttr("order", std::vector<int64_t>{1, 0});
  b.create(OpCode::Store,
           {tilePointers(b, y, offN, offM, strideYn, nullptr), trans->result(),
            tileMask(b, offN, offM, N, M)},
           {});
  b.create(OpCode::Return, {}, {});
  return f;
}

/// The seed's Transpose2D-2 (the stride trick) with col_stride_x = col_stride_y = 1 bound: the
/// load is contiguous along dim 0, the store along dim 1.
inline Function *transposeStrideKernel(Module &m, ScalarKind elem, int64_t bm, int64_t bn,
                                       unsigned numWarps = 4) {
  Function *f = m.addFunction("transpose_kernel", SourceLoc{1, 1, 1});
  f->numWarps = numWarps;
  Block &body = f->body();
  Value *x = body.addArgument(Type(ptrTo(elem)));
  Value *y = body.addArgument(Type(ptrTo(elem)));
  Value *M = body.addArgument(Type(i32()));
  Value *N = body.addArgument(Type(i32()));
  Value *rowStrideX = body.addArgument(Type(i32()));
  Value *rowStrideY = body.addArgument(Type(i32()));
  f->params = {{"x_ptr", x->type().elem, 16},     {"y_ptr", y->type().elem, 16},
               {"M", i32(), 0, 16},               {"N", i32(), 0, 16},
               {"row_stride_x", i32(), 0, 16},    {"row_stride_y", i32(), 0, 16}};
  Builder b(body);
  b.setLoc(SourceLoc{1, 12, 5});
  Value *rows = blockOffsets(b, b.programId(0), bm);
  Value *cols = blockOffsets(b, b.programId(1), bn);
  Value *mask = tileMask(b, cols, rows, N, M);
  Value *xv = b.createValue(OpCode::Load,
                            {tilePointers(b, x, cols, rows, nullptr, rowStrideX), mask},
                            Type(DType::scalar(elem), {bn, bm}));
  b.create(OpCode::Store, {tilePointers(b, y, cols, rows, rowStrideY, nullptr), xv, mask}, {});
  b.create(OpCode::Return, {}, {});
  return f;
}

/// c = a @ b for one M x N tile: a is M x K (row stride K), b is K x N (row stride N), products
/// accumulated in `acc` (zeros).
inline Function *dotKernel(Module &m, ScalarKind in, ScalarKind acc, int64_t M, int64_t N,
                           int64_t K, const std::string &precision = "ieee",
                           unsigned numWarps = 4) {
  Function *f = m.addFunction("dot_kernel", SourceLoc{1, 1, 1});
  f->numWarps = numWarps;
  Block &body = f->body();
  Value *a = body.addArgument(Type(ptrTo(in)));
  Value *bp = body.addArgument(Type(ptrTo(in)));
  Value *c = body.addArgument(Type(ptrTo(acc)));
  f->params = {{"a_ptr", a->type().elem, 16}, {"b_ptr", bp->type().elem, 16},
               {"c_ptr", c->type().elem, 16}};
  Builder b(body);
  b.setLoc(SourceLoc{1, 6, 11});
  Value *rm = b.makeRange(0, M), *rn = b.makeRange(0, N), *rk = b.makeRange(0, K);
  Value *av = b.createValue(
      OpCode::Load, {tilePointers(b, a, rm, rk, b.intConstant(K, Type(i32())), nullptr)},
      Type(DType::scalar(in), {M, K}));
  Value *bv = b.createValue(
      OpCode::Load, {tilePointers(b, bp, rk, rn, b.intConstant(N, Type(i32())), nullptr)},
      Type(DType::scalar(in), {K, N}));
  Value *zero = DType::scalar(acc).isFloat()
                    ? b.floatConstant(0.0, Type(DType::scalar(acc), {M, N}))
                    : b.intConstant(0, Type(DType::scalar(acc), {M, N}));
  Operation *dot = b.create(OpCode::Dot, {av, bv, zero}, {Type(DType::scalar(acc), {M, N})});
  dot->setAttr("input_precision", precision);
  b.create(OpCode::Store,
           {tilePointers(b, c, rm, rn, b.intConstant(N, Type(i32())), nullptr), dot->result()},
           {});
  b.create(OpCode::Return, {}, {});
  return f;
}

} // namespace tilec::testkernels
