// The interpreter's tf32 rounding and dot, on values where the rounding mode shows.
#include "interp/Tensor.h"

#include <catch2/catch.hpp>
#include <cmath>
#include <limits>

using namespace tilec;
using namespace tilec::interp;
using tir::DType;
using tir::ScalarKind;

TEST_CASE("tf32: 10 mantissa bits, to nearest, ties away from zero", "[interp]") {
  CHECK(roundToTF32(1.0f) == 1.0f);
  CHECK(roundToTF32(1.0f + 0x1p-12f) == 1.0f);            // below half: down
  CHECK(roundToTF32(1.0f + 0x1p-11f) == 1.0f + 0x1p-10f); // the tie: away from zero
  CHECK(roundToTF32(-1.0f - 0x1p-11f) == -1.0f - 0x1p-10f);
  CHECK(roundToTF32(1.0f + 0x1p-11f + 0x1p-20f) == 1.0f + 0x1p-10f);
  CHECK(std::isinf(roundToTF32(std::numeric_limits<float>::max())));
  CHECK(std::isnan(roundToTF32(std::nanf(""))));
}

namespace {
struct Reporter : ErrorReporter {
  Reporter() : ErrorReporter(SourceLoc{}) {}
};

Tensor filled(ScalarKind kind, std::vector<int64_t> shape, const std::vector<double> &values) {
  Tensor t;
  t.reset(DType::scalar(kind), shape);
  for (size_t i = 0; i < values.size(); ++i) {
    if (t.laneKind() == LaneKind::Int)
      t.lanes<int64_t>()[i] = static_cast<int64_t>(values[i]);
    else
      t.lanes<float>()[i] = static_cast<float>(values[i]);
  }
  return t;
}
} // namespace

TEST_CASE("dot: tf32 rounds fp32 inputs, ieee does not; int8 wraps in int32", "[interp]") {
  Reporter errors;
  // [1 x 2] @ [2 x 1]: (1 + 2^-11) * 1 + 0 * 0.
  Tensor a = filled(ScalarKind::F32, {1, 2}, {1.0 + 0x1p-11, 0});
  Tensor b = filled(ScalarKind::F32, {2, 1}, {1, 0});
  Tensor acc = filled(ScalarKind::F32, {1, 1}, {0.5});
  Tensor out;
  out.reset(DType::scalar(ScalarKind::F32), {1, 1});
  evalDot(a, b, acc, DotPrecision::IEEE, out, errors);
  CHECK(out.lanes<float>()[0] == 1.5f + 0x1p-11f);
  evalDot(a, b, acc, DotPrecision::TF32, out, errors);
  CHECK(out.lanes<float>()[0] == 1.5f + 0x1p-10f);

  Tensor x = filled(ScalarKind::I8, {1, 2}, {127, 127});
  Tensor y = filled(ScalarKind::I8, {2, 1}, {127, 127});
  Tensor c = filled(ScalarKind::I32, {1, 1}, {2147483647.0 - 100});
  Tensor r;
  r.reset(DType::scalar(ScalarKind::I32), {1, 1});
  evalDot(x, y, c, DotPrecision::IEEE, r, errors);
  CHECK(r.lanes<int64_t>()[0] == static_cast<int32_t>(2147483647u - 100u + 2u * 127u * 127u));
}

TEST_CASE("trans permutes the dimensions", "[interp]") {
  Tensor in = filled(ScalarKind::I32, {2, 3, 4}, {});
  for (int64_t i = 0; i < 24; ++i)
    in.lanes<int64_t>()[i] = i;
  Tensor out;
  out.reset(DType::scalar(ScalarKind::I32), {4, 2, 3});
  evalTrans(in, {2, 0, 1}, out);
  // out[l][i][j] = in[i][j][l] = i * 12 + j * 4 + l
  for (int64_t l = 0; l < 4; ++l)
    for (int64_t i = 0; i < 2; ++i)
      for (int64_t j = 0; j < 3; ++j)
        CHECK(out.lanes<int64_t>()[(l * 2 + i) * 3 + j] == i * 12 + j * 4 + l);
}
