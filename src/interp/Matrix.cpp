// The interpreter's trans and dot.
//
// dot computes every element of the result on its own (batch by batch for 3-D operands), exactly
// in the accumulator's type:
//   c[i][j] = acc[i][j]; then for k = 0, 1, ..., K-1: c[i][j] = fma(a[i][k], b[k][j], c[i][j])
// rounded to the accumulator type after each step. fp8/fp16/bf16 products are exact in fp32, so
// fma and multiply-then-add agree for them. fp32 operands with input_precision "tf32" are first
// rounded to tf32 (a 10-bit mantissa, round to nearest with ties away from zero, as PTX's
// cvt.rna.tf32.f32 does), which is what the tensor cores multiply ("tf32x3" never reaches here:
// sema makes it three tf32 dots, as Triton); "ieee" multiplies the fp32 values as they are. int8
// products accumulate in int32 with wrap-around. The GPU's tensor cores add the K products in
// another order (in blocks, with their own internal rounding), so fp32 results can differ from the
// GPU's in the last bits; the integer results are exact.
#include "interp/Numerics.h"
#include "interp/Tensor.h"

#include <cmath>
#include <cstring>

namespace tilec::interp {

using tir::ScalarKind;

float roundToTF32(float v) {
  if (!std::isfinite(v))
    return v;
  uint32_t bits;
  std::memcpy(&bits, &v, sizeof(bits));
  // Keep 10 of the 23 mantissa bits: add half of the last kept bit's weight to the magnitude
  // (ties go away from zero), then clear the 13 dropped bits. A carry into the exponent is the
  // correct rounding up, to infinity beyond the largest finite tf32 value.
  bits += 0x1000u;
  bits &= ~0x1FFFu;
  std::memcpy(&v, &bits, sizeof(v));
  return v;
}

bool parseDotPrecision(const std::string &text, DotPrecision &out) {
  if (text == "ieee")
    out = DotPrecision::IEEE;
  else if (text == "tf32")
    out = DotPrecision::TF32;
  else
    return false;
  return true;
}

void evalTrans(const Tensor &in, const std::vector<int64_t> &order, Tensor &out) {
  const unsigned rank = in.rank();
  const size_t bytes = laneBytes(in.laneKind());
  // The input's row-major strides, permuted into the output's dimension order.
  std::vector<int64_t> inStrides(rank, 1);
  for (unsigned d = rank; d-- > 1;)
    inStrides[d - 1] = inStrides[d] * in.shape()[d];
  std::vector<int64_t> strides(rank);
  for (unsigned d = 0; d < rank; ++d)
    strides[d] = inStrides[order[d]];
  const auto *source = in.lanes<unsigned char>();
  auto *target = out.lanes<unsigned char>();
  std::vector<int64_t> index(rank, 0);
  const std::vector<int64_t> &shape = out.shape();
  int64_t from = 0;
  for (int64_t i = 0; i < out.numElements(); ++i) {
    std::memcpy(target + i * bytes, source + from * bytes, bytes);
    // Step the output index in row-major order, keeping the input offset in step.
    for (unsigned d = rank; d-- > 0;) {
      from += strides[d];
      if (++index[d] < shape[d])
        break;
      from -= strides[d] * shape[d];
      index[d] = 0;
    }
  }
}

void evalDot(const Tensor &a, const Tensor &b, const Tensor &acc, DotPrecision precision,
             Tensor &out, const ErrorReporter &errors) {
  // [M,K] x [K,N] + [M,N], or a batch of them: [B,M,K] x [B,K,N] + [B,M,N], batch by batch.
  const size_t rank = a.shape().size();
  if ((rank != 2 && rank != 3) || b.shape().size() != rank)
    errors.fail("operands must be both 2-D or both 3-D");
  const int64_t batches = rank == 3 ? a.shape()[0] : 1;
  const int64_t m = a.shape()[rank - 2], k = a.shape()[rank - 1], n = b.shape()[rank - 1];
  std::vector<int64_t> bShape{k, n}, cShape{m, n};
  if (rank == 3) {
    bShape.insert(bShape.begin(), batches);
    cShape.insert(cShape.begin(), batches);
  }
  if (b.shape() != bShape || acc.shape() != cShape || out.shape() != acc.shape())
    errors.fail("operand shapes do not chain: [(B,)M,K] x [(B,)K,N] + [(B,)M,N]");
  if (a.dtype() != b.dtype() || acc.dtype() != out.dtype())
    errors.fail("operand types do not match");
  const ScalarKind accKind = out.dtype().kind;
  const int64_t sizeA = m * k, sizeB = k * n, sizeC = m * n; // elements per batch

  if (a.laneKind() == LaneKind::Int) {
    if (out.laneKind() != LaneKind::Int)
      errors.fail("integer operands need an integer accumulator");
    for (int64_t batch = 0; batch < batches; ++batch) {
      const int64_t *x = a.lanes<int64_t>() + batch * sizeA,
                    *y = b.lanes<int64_t>() + batch * sizeB,
                    *c = acc.lanes<int64_t>() + batch * sizeC;
      int64_t *r = out.lanes<int64_t>() + batch * sizeC;
      for (int64_t i = 0; i < m; ++i)
        for (int64_t j = 0; j < n; ++j) {
          uint64_t sum = static_cast<uint64_t>(c[i * n + j]);
          for (int64_t p = 0; p < k; ++p)
            sum += static_cast<uint64_t>(x[i * k + p] * y[p * n + j]);
          r[i * n + j] = wrapInteger(sum, accKind);
        }
    }
    return;
  }
  if (a.laneKind() == LaneKind::Double) {
    if (out.laneKind() != LaneKind::Double)
      errors.fail("fp64 operands need an fp64 accumulator");
    for (int64_t batch = 0; batch < batches; ++batch) {
      const double *x = a.lanes<double>() + batch * sizeA, *y = b.lanes<double>() + batch * sizeB,
                   *c = acc.lanes<double>() + batch * sizeC;
      double *r = out.lanes<double>() + batch * sizeC;
      for (int64_t i = 0; i < m; ++i)
        for (int64_t j = 0; j < n; ++j) {
          double sum = c[i * n + j];
          for (int64_t p = 0; p < k; ++p)
            sum = std::fma(x[i * k + p], y[p * n + j], sum);
          r[i * n + j] = sum;
        }
    }
    return;
  }
  if (a.laneKind() != LaneKind::Float || out.laneKind() != LaneKind::Float)
    errors.fail("unsupported operand or accumulator type");

  // Round the operands once (tf32), then accumulate.
  const bool toTF32 = a.dtype().kind == ScalarKind::F32 && precision == DotPrecision::TF32;
  std::vector<float> xs(a.lanes<float>(), a.lanes<float>() + batches * sizeA);
  std::vector<float> ys(b.lanes<float>(), b.lanes<float>() + batches * sizeB);
  if (toTF32) {
    for (float &v : xs)
      v = roundToTF32(v);
    for (float &v : ys)
      v = roundToTF32(v);
  }
  for (int64_t batch = 0; batch < batches; ++batch) {
    const int64_t offA = batch * sizeA, offB = batch * sizeB;
    const float *c = acc.lanes<float>() + batch * sizeC;
    float *r = out.lanes<float>() + batch * sizeC;
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) {
        float sum = c[i * n + j];
        for (int64_t p = 0; p < k; ++p) {
          const int64_t ia = offA + i * k + p, ib = offB + p * n + j;
          sum = roundFloatLane(std::fma(xs[ia], ys[ib], sum), accKind);
        }
        r[i * n + j] = sum;
      }
  }
}

} // namespace tilec::interp
