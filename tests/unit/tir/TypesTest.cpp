#include "tir/Types.h"

#include <catch2/catch.hpp>

using namespace tilec::tir;

TEST_CASE("dtype names parse in Triton's and the IR's spellings", "[tir]") {
  ScalarKind k;
  REQUIRE(parseDType("fp32", k));
  CHECK(k == ScalarKind::F32);
  REQUIRE(parseDType("float16", k));
  CHECK(k == ScalarKind::F16);
  REQUIRE(parseDType("i64", k));
  CHECK(k == ScalarKind::I64);
  REQUIRE(parseDType("bf16", k));
  CHECK(k == ScalarKind::BF16);
  CHECK_FALSE(parseDType("fp33", k));
}

TEST_CASE("types print as the IR spells them", "[tir]") {
  CHECK(Type(DType::scalar(ScalarKind::I32)).str() == "i32");
  CHECK(Type(DType::pointer(ScalarKind::F16)).str() == "!ptr<f16>");
  CHECK(Type(DType::scalar(ScalarKind::F32), {64, 32}).str() == "tensor<64x32xf32>");
  CHECK(Type(DType::pointer(ScalarKind::F32), {8}).str() == "tensor<8x!ptr<f32>>");
}

TEST_CASE("dtype classification", "[tir]") {
  DType u8 = DType::scalar(ScalarKind::U8);
  CHECK(u8.isInteger());
  CHECK(u8.isUnsigned());
  CHECK_FALSE(u8.isSigned());
  CHECK(DType::scalar(ScalarKind::I1).isInteger());
  CHECK_FALSE(DType::scalar(ScalarKind::I1).isSigned());
  CHECK(DType::scalar(ScalarKind::BF16).isFloat());
  CHECK(DType::scalar(ScalarKind::BF16).bits() == 16);
  CHECK(DType::pointer(ScalarKind::F64).bits() == 64);
  CHECK(DType::pointer(ScalarKind::F64).pointeeType() == DType::scalar(ScalarKind::F64));
}

TEST_CASE("type equality distinguishes pointee types and shapes", "[tir]") {
  CHECK(DType::pointer(ScalarKind::F32) != DType::pointer(ScalarKind::F16));
  Type a(DType::scalar(ScalarKind::F32), {4});
  Type b(DType::scalar(ScalarKind::F32), {8});
  CHECK(a != b);
  CHECK(a == a.withShape({4}));
  CHECK(a.numElements() == 4);
}
