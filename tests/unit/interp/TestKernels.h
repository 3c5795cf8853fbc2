// Helpers for the interpreter tests: kernels built by hand with tir::Builder, and buffers filled
// and read with memcpy (so that checks do not go through the HostBuffer conversions under test).
#pragma once

#include "interp/HostBuffer.h"
#include "interp/Interpreter.h"
#include "tir/Builder.h"
#include "tir/Verifier.h"

#include <catch2/catch.hpp>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

namespace interp_test {

inline tilec::tir::DType scalar(tilec::tir::ScalarKind kind) {
  return tilec::tir::DType::scalar(kind);
}
inline tilec::tir::DType pointerTo(tilec::tir::ScalarKind kind) {
  return tilec::tir::DType::pointer(kind);
}

/// A kernel under construction: its parameters, a builder appending to its body, and the source
/// location the next operations get.
class KernelBuilder {
public:
  explicit KernelBuilder(const std::string &name)
      : function(std::make_unique<tilec::tir::Function>(name, tilec::SourceLoc{0, 1, 1})),
        b(function->body()) {}

  tilec::tir::Value *param(const std::string &name, tilec::tir::DType type,
                           unsigned alignment = 0) {
    tilec::tir::Value *value = function->body().addArgument(tilec::tir::Type(type));
    function->params.push_back({name, type, alignment, 0});
    return value;
  }
  /// Operations built from now on carry this location.
  void at(uint32_t line, uint32_t col) { b.setLoc(tilec::SourceLoc{0, line, col}); }

  tilec::tir::Value *constant(int64_t value, tilec::tir::ScalarKind kind,
                              std::vector<int64_t> shape = {}) {
    return b.intConstant(value, tilec::tir::Type(scalar(kind), std::move(shape)));
  }
  tilec::tir::Value *constantF(double value, tilec::tir::ScalarKind kind,
                               std::vector<int64_t> shape = {}) {
    return b.floatConstant(value, tilec::tir::Type(scalar(kind), std::move(shape)));
  }
  /// base + offsets, with a scalar base pointer splatted to the offsets' shape.
  tilec::tir::Value *pointers(tilec::tir::Value *base, tilec::tir::Value *offsets) {
    return b.addPtr(b.splat(base, offsets->type().shape), offsets);
  }
  tilec::tir::Value *load(tilec::tir::Value *ptr, tilec::tir::Value *mask = nullptr,
                          tilec::tir::Value *other = nullptr) {
    std::vector<tilec::tir::Value *> operands = {ptr};
    if (mask)
      operands.push_back(mask);
    if (other)
      operands.push_back(other);
    tilec::tir::Type type = ptr->type().withElem(ptr->type().elem.pointeeType());
    tilec::tir::Operation *op = b.create(tilec::tir::OpCode::Load, operands, {type});
    op->setAttr("has_mask", mask != nullptr);
    op->setAttr("has_other", other != nullptr);
    return op->result();
  }
  void store(tilec::tir::Value *ptr, tilec::tir::Value *value, tilec::tir::Value *mask = nullptr) {
    std::vector<tilec::tir::Value *> operands = {ptr, value};
    if (mask)
      operands.push_back(mask);
    b.create(tilec::tir::OpCode::Store, operands, {});
  }
  tilec::tir::Value *reduce(tilec::tir::OpCode code, const std::string &kind,
                            tilec::tir::Value *value, int64_t axis, tilec::tir::DType resultType) {
    std::vector<int64_t> shape = value->type().shape;
    shape.erase(shape.begin() + axis);
    tilec::tir::Operation *op =
        b.create(code, {value}, {tilec::tir::Type(resultType, std::move(shape))});
    op->setAttr("kind", kind);
    op->setAttr("axis", axis);
    return op->result();
  }

  /// Appends `return` and checks that the verifier accepts the kernel.
  std::unique_ptr<tilec::tir::Function> finish() {
    b.create(tilec::tir::OpCode::Return, {}, {});
    std::string problem = tilec::tir::verify(*function);
    INFO(problem);
    REQUIRE(problem.empty());
    return std::move(function);
  }

  std::unique_ptr<tilec::tir::Function> function;
  tilec::tir::Builder b;
};

template <typename T>
tilec::interp::HostBuffer makeBuffer(tilec::tir::ScalarKind kind, const std::vector<T> &values) {
  tilec::interp::HostBuffer buffer(scalar(kind), values.size());
  REQUIRE(buffer.sizeInBytes() == values.size() * sizeof(T));
  std::memcpy(buffer.data(), values.data(), buffer.sizeInBytes());
  return buffer;
}

template <typename T> std::vector<T> contents(const tilec::interp::HostBuffer &buffer) {
  REQUIRE(buffer.elementType().bytes() == sizeof(T));
  std::vector<T> values(buffer.size());
  std::memcpy(values.data(), buffer.data(), buffer.sizeInBytes());
  return values;
}

inline uint16_t halfBits(_Float16 v) {
  uint16_t bits;
  std::memcpy(&bits, &v, sizeof(bits));
  return bits;
}

inline tilec::interp::LaunchOptions gridOf(unsigned x, unsigned y = 1, unsigned z = 1) {
  tilec::interp::LaunchOptions options;
  options.grid[0] = x;
  options.grid[1] = y;
  options.grid[2] = z;
  return options;
}

/// out[i] = lhs[i] <code> rhs[i] for the n elements of one program (n a power of two).
inline std::unique_ptr<tilec::tir::Function> binaryKernel(tilec::tir::OpCode code,
                                                          tilec::tir::ScalarKind kind, int64_t n) {
  KernelBuilder k("binary");
  tilec::tir::Value *lhs = k.param("lhs", pointerTo(kind));
  tilec::tir::Value *rhs = k.param("rhs", pointerTo(kind));
  tilec::tir::Value *out = k.param("out", pointerTo(kind));
  tilec::tir::Value *offsets = k.b.makeRange(0, n);
  tilec::tir::Value *result =
      k.b.binary(code, k.load(k.pointers(lhs, offsets)), k.load(k.pointers(rhs, offsets)));
  k.store(k.pointers(out, offsets), result);
  return k.finish();
}

/// out[i] = convert(in[i]) for the n elements of one program; `code` is Cast, Bitcast or a unary
/// math op (then `from` == `to`).
inline std::unique_ptr<tilec::tir::Function> unaryKernel(tilec::tir::OpCode code,
                                                         tilec::tir::ScalarKind from,
                                                         tilec::tir::ScalarKind to, int64_t n) {
  KernelBuilder k("unary");
  tilec::tir::Value *in = k.param("in", pointerTo(from));
  tilec::tir::Value *out = k.param("out", pointerTo(to));
  tilec::tir::Value *offsets = k.b.makeRange(0, n);
  tilec::tir::Value *x = k.load(k.pointers(in, offsets));
  tilec::tir::Value *result =
      code == tilec::tir::OpCode::Cast || code == tilec::tir::OpCode::Bitcast
          ? k.b.createValue(code, {x}, x->type().withElem(scalar(to)))
          : k.b.unary(code, x);
  k.store(k.pointers(out, offsets), result);
  return k.finish();
}

template <typename In, typename Out>
std::vector<Out> runUnary(tilec::tir::OpCode code, tilec::tir::ScalarKind from,
                          tilec::tir::ScalarKind to, const std::vector<In> &values) {
  auto kernel = unaryKernel(code, from, to, static_cast<int64_t>(values.size()));
  tilec::interp::HostBuffer in = makeBuffer(from, values);
  tilec::interp::HostBuffer out(scalar(to), values.size());
  tilec::interp::run(
      *kernel, {tilec::interp::KernelArg::pointer(in), tilec::interp::KernelArg::pointer(out)},
      gridOf(1));
  return contents<Out>(out);
}

template <typename T>
std::vector<T> runBinary(tilec::tir::OpCode code, tilec::tir::ScalarKind kind,
                         const std::vector<T> &lhs, const std::vector<T> &rhs) {
  REQUIRE(lhs.size() == rhs.size());
  auto kernel = binaryKernel(code, kind, static_cast<int64_t>(lhs.size()));
  tilec::interp::HostBuffer a = makeBuffer(kind, lhs), b = makeBuffer(kind, rhs);
  tilec::interp::HostBuffer out(scalar(kind), lhs.size());
  tilec::interp::run(*kernel,
                     {tilec::interp::KernelArg::pointer(a), tilec::interp::KernelArg::pointer(b),
                      tilec::interp::KernelArg::pointer(out)},
                     gridOf(1));
  return contents<T>(out);
}

} // namespace interp_test
