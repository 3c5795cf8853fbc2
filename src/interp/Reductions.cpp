// Reductions of the interpreter: sum/max/min and argmax/argmin along one axis.
//
// Sums combine pairwise (element i with element i + n/2, halving), the order of the butterfly
// shuffles the GPU code uses across a warp, so rounding errors behave like the GPU's. Every partial
// sum is rounded to the element type: the GPU code adds fp16 in fp16, as Triton does (Triton 3.6
// on an H100 sums the fp16 test data of SemanticsTest.cpp to 163.75, not to the 163.625 that fp32
// accumulation gives). The order within a thread depends on the layout, which the interpreter does
// not know, so fp16/bf16 sums can still differ from the GPU's in the last bits. Max/min ignore NaN
// like maxNum, and argmax/argmin return the first index of the extreme value.
#include "interp/Numerics.h"
#include "interp/Tensor.h"

#include <algorithm>

namespace tilec::interp {

using tir::ScalarKind;

namespace {

/// The input viewed as [outer, length, inner] with the reduced axis in the middle.
struct ReductionShape {
  int64_t outer = 1;
  int64_t length = 1;
  int64_t inner = 1;
};

template <typename T, typename Combine, typename Finish>
void reducePairwise(const Tensor &in, Tensor &out, const ReductionShape &shape, Combine combine,
                    Finish finish) {
  const int64_t sliceSize = shape.length * shape.inner;
  std::vector<T> rows(static_cast<size_t>(sliceSize));
  const T *source = in.lanes<T>();
  T *target = out.lanes<T>();
  for (int64_t o = 0; o < shape.outer; ++o) {
    std::copy(source + o * sliceSize, source + (o + 1) * sliceSize, rows.begin());
    for (int64_t n = shape.length; n > 1;) {
      int64_t half = (n + 1) / 2;
      for (int64_t r = 0; r < n - half; ++r) {
        T *into = &rows[static_cast<size_t>(r * shape.inner)];
        const T *from = &rows[static_cast<size_t>((r + half) * shape.inner)];
        for (int64_t j = 0; j < shape.inner; ++j)
          into[j] = combine(into[j], from[j]);
      }
      n = half;
    }
    for (int64_t j = 0; j < shape.inner; ++j)
      target[o * shape.inner + j] = finish(rows[static_cast<size_t>(j)]);
  }
}

/// `better(a, b)`: a replaces the best-so-far b. Strict, so the first index wins ties.
template <typename T, typename Better, typename Skip>
void argReduce(const Tensor &in, Tensor &out, const ReductionShape &shape, Better better,
               Skip skip) {
  const T *source = in.lanes<T>();
  int64_t *target = out.lanes<int64_t>();
  for (int64_t o = 0; o < shape.outer; ++o) {
    for (int64_t j = 0; j < shape.inner; ++j) {
      const T *column = source + o * shape.length * shape.inner + j;
      int64_t bestIndex = -1;
      T best{};
      for (int64_t k = 0; k < shape.length; ++k) {
        T v = column[k * shape.inner];
        if (skip(v))
          continue;
        if (bestIndex < 0 || better(v, best)) {
          best = v;
          bestIndex = k;
        }
      }
      // An all-NaN column has no extreme value; report its first index.
      target[o * shape.inner + j] = bestIndex < 0 ? 0 : bestIndex;
    }
  }
}

template <typename T>
void argReduceNumbers(bool isMax, bool isUnsigned, const Tensor &in, Tensor &out,
                      const ReductionShape &shape) {
  auto isNaN = [](T v) { return v != v; };
  if constexpr (std::is_same_v<T, int64_t>) {
    if (isUnsigned) {
      auto u = [](int64_t v) { return static_cast<uint64_t>(v); };
      if (isMax)
        return argReduce<T>(
            in, out, shape, [=](T a, T b) { return u(a) > u(b); }, isNaN);
      return argReduce<T>(
          in, out, shape, [=](T a, T b) { return u(a) < u(b); }, isNaN);
    }
  }
  if (isMax)
    return argReduce<T>(
        in, out, shape, [](T a, T b) { return a > b; }, isNaN);
  return argReduce<T>(
      in, out, shape, [](T a, T b) { return a < b; }, isNaN);
}

template <typename F>
void reduceFloats(ReduceKind kind, const Tensor &in, Tensor &out, const ReductionShape &shape) {
  const ScalarKind resultKind = out.dtype().kind;
  auto identity = [](F v) { return v; };
  switch (kind) {
  case ReduceKind::Sum:
    if constexpr (std::is_same_v<F, float>) {
      if (resultKind != ScalarKind::F32)
        return reducePairwise<F>(
            in, out, shape, [=](F a, F b) { return roundFloatLane(a + b, resultKind); }, identity);
    }
    return reducePairwise<F>(
        in, out, shape, [](F a, F b) { return a + b; }, identity);
  case ReduceKind::Max:
    return reducePairwise<F>(
        in, out, shape, [](F a, F b) { return maxNum(a, b); }, identity);
  default:
    return reducePairwise<F>(
        in, out, shape, [](F a, F b) { return minNum(a, b); }, identity);
  }
}

void reduceIntegers(ReduceKind kind, const Tensor &in, Tensor &out, const ReductionShape &shape) {
  const ScalarKind resultKind = out.dtype().kind;
  auto u = [](int64_t v) { return static_cast<uint64_t>(v); };
  auto identity = [](int64_t v) { return v; };
  // Wrapping addition is associative, so wrapping once at the end is the same as at every step.
  if (kind == ReduceKind::Sum)
    return reducePairwise<int64_t>(
        in, out, shape, [=](int64_t a, int64_t b) { return static_cast<int64_t>(u(a) + u(b)); },
        [=](int64_t v) { return wrapInteger(u(v), resultKind); });
  if (kind == ReduceKind::Xor)
    return reducePairwise<int64_t>(
        in, out, shape, [](int64_t a, int64_t b) { return a ^ b; },
        [=](int64_t v) { return wrapInteger(u(v), resultKind); });
  bool isMax = kind == ReduceKind::Max;
  if (in.dtype().isSigned())
    return reducePairwise<int64_t>(
        in, out, shape,
        [=](int64_t a, int64_t b) { return isMax ? std::max(a, b) : std::min(a, b); }, identity);
  return reducePairwise<int64_t>(
      in, out, shape,
      [=](int64_t a, int64_t b) { return isMax ? (u(a) > u(b) ? a : b) : (u(a) < u(b) ? a : b); },
      identity);
}

} // namespace

bool parseReduceKind(const std::string &text, ReduceKind &out) {
  static const std::pair<const char *, ReduceKind> table[] = {
      {"sum", ReduceKind::Sum},         {"max", ReduceKind::Max},
      {"min", ReduceKind::Min},         {"xor", ReduceKind::Xor},
      {"combine", ReduceKind::Combine}, {"argmax", ReduceKind::ArgMax},
      {"argmin", ReduceKind::ArgMin}};
  for (const auto &[name, kind] : table) {
    if (text == name) {
      out = kind;
      return true;
    }
  }
  return false;
}

void evalReduce(ReduceKind kind, int64_t axis, const Tensor &in, Tensor &out,
                const ErrorReporter &errors) {
  const std::vector<int64_t> &dims = in.shape();
  if (axis < 0 || axis >= static_cast<int64_t>(dims.size()))
    errors.fail("reduction axis " + std::to_string(axis) + " is out of range for a rank-" +
                std::to_string(dims.size()) + " operand");
  ReductionShape shape;
  for (int64_t d = 0; d < static_cast<int64_t>(dims.size()); ++d) {
    if (d < axis)
      shape.outer *= dims[d];
    else if (d == axis)
      shape.length = dims[d];
    else
      shape.inner *= dims[d];
  }
  if (shape.length == 0)
    errors.fail("reduction over an empty axis");

  if (kind == ReduceKind::ArgMax || kind == ReduceKind::ArgMin) {
    bool isMax = kind == ReduceKind::ArgMax;
    switch (in.laneKind()) {
    case LaneKind::Int:
      return argReduceNumbers<int64_t>(isMax, in.dtype().isUnsigned(), in, out, shape);
    case LaneKind::Float:
      return argReduceNumbers<float>(isMax, false, in, out, shape);
    case LaneKind::Double:
      return argReduceNumbers<double>(isMax, false, in, out, shape);
    case LaneKind::Ptr:
      errors.fail("cannot reduce pointers");
    }
  }
  if (kind == ReduceKind::Combine)
    errors.fail("a reduction with a combine function has its own evaluation");
  if (kind == ReduceKind::Xor && in.laneKind() != LaneKind::Int)
    errors.fail("xor reduction of a non-integer operand");
  switch (in.laneKind()) {
  case LaneKind::Int:
    return reduceIntegers(kind, in, out, shape);
  case LaneKind::Float:
    return reduceFloats<float>(kind, in, out, shape);
  case LaneKind::Double:
    return reduceFloats<double>(kind, in, out, shape);
  case LaneKind::Ptr:
    errors.fail("cannot reduce pointers");
  }
}

} // namespace tilec::interp

namespace tilec::interp {

void evalScan(bool product, bool reverse, int64_t axis, const Tensor &in, Tensor &out,
              const ErrorReporter &errors) {
  const std::vector<int64_t> &dims = in.shape();
  if (axis < 0 || axis >= static_cast<int64_t>(dims.size()))
    errors.fail("scan axis " + std::to_string(axis) + " is out of range for a rank-" +
                std::to_string(dims.size()) + " operand");
  int64_t outer = 1, length = dims[axis], inner = 1;
  for (int64_t d = 0; d < static_cast<int64_t>(dims.size()); ++d) {
    if (d < axis)
      outer *= dims[d];
    else if (d > axis)
      inner *= dims[d];
  }
  const ScalarKind kind = in.dtype().kind;
  // Element k of the line through (o, i), counted from the end when reversed.
  auto index = [&](int64_t o, int64_t k, int64_t i) {
    int64_t along = reverse ? length - 1 - k : k;
    return (o * length + along) * inner + i;
  };
  auto scan = [&](auto tag, auto combine) {
    using T = decltype(tag);
    const T *x = in.lanes<T>();
    T *r = out.lanes<T>();
    for (int64_t o = 0; o < outer; ++o)
      for (int64_t i = 0; i < inner; ++i) {
        T acc = x[index(o, 0, i)];
        r[index(o, 0, i)] = acc;
        for (int64_t k = 1; k < length; ++k) {
          acc = combine(acc, x[index(o, k, i)]);
          r[index(o, k, i)] = acc;
        }
      }
  };
  switch (in.laneKind()) {
  case LaneKind::Int: {
    auto u = [](int64_t v) { return static_cast<uint64_t>(v); };
    return scan(int64_t{}, [&](int64_t a, int64_t b) {
      return wrapInteger(product ? u(a) * u(b) : u(a) + u(b), kind);
    });
  }
  case LaneKind::Float:
    // fp16 and bf16 round after every step, as each step of the GPU scan does.
    return scan(float{}, [&](float a, float b) {
      float v = product ? a * b : a + b;
      return kind == ScalarKind::F32 ? v : static_cast<float>(roundToFloatType(v, kind));
    });
  case LaneKind::Double:
    return scan(double{}, [&](double a, double b) { return product ? a * b : a + b; });
  case LaneKind::Ptr:
    errors.fail("cannot scan pointers");
  }
}

} // namespace tilec::interp
