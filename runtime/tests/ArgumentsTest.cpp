//===- ArgumentsTest.cpp - Checking launch arguments against metadata -----===//

#include "tilec/runtime.hpp"

#include <catch2/catch.hpp>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

using namespace tilec::rt;

namespace {

KernelInfo kernelFromParams(const std::string &params) {
  Metadata metadata = Metadata::parse(
      R"({"schema": "tilec-metadata", "version": 1, "target": "sm_90a", "kernels": [
          {"name": "k", "entry": "k", "num_warps": 4, "threads_per_block": 128,
           "shared_memory_bytes": 0, "params": [)" +
      params + "]}]}");
  return metadata.Kernels[0];
}

const KernelInfo &addKernel() {
  static const KernelInfo Kernel = kernelFromParams(
      R"({"name": "x_ptr", "type": "*fp32", "alignment": 16},
         {"name": "y_ptr", "type": "*fp32", "alignment": 16},
         {"name": "output_ptr", "type": "*fp32", "alignment": 16},
         {"name": "n_elements", "type": "i32"})");
  return Kernel;
}

/// Packs \p args for \p kernel; returns the slots.
std::vector<uint64_t> pack(const KernelInfo &kernel, const std::vector<Arg> &args) {
  std::vector<uint64_t> slots(args.size(), 0xdeadbeefdeadbeefull);
  packArguments(kernel, args.data(), args.size(), slots.data());
  return slots;
}

/// What packing a single argument for a kernel with the single parameter \p param reports.
std::string singleError(const std::string &param, const Arg &arg) {
  try {
    pack(kernelFromParams(param), {arg});
  } catch (const Error &error) {
    return error.what();
  }
  return "(no error)";
}

/// The single slot packing \p arg for \p param gives.
uint64_t singleSlot(const std::string &param, const Arg &arg) {
  return pack(kernelFromParams(param), {arg})[0];
}

template <typename T> T slotAs(uint64_t slot) {
  T value;
  std::memcpy(&value, &slot, sizeof value);
  return value;
}

const std::string I32 = R"({"name": "n", "type": "i32"})";
const std::string I64 = R"({"name": "n", "type": "i64"})";
const std::string U32 = R"({"name": "n", "type": "u32"})";
const std::string I8 = R"({"name": "n", "type": "i8"})";
const std::string I1 = R"({"name": "flag", "type": "i1"})";
const std::string FP32 = R"({"name": "x", "type": "fp32"})";
const std::string FP64 = R"({"name": "x", "type": "fp64"})";
const std::string FP16 = R"({"name": "h", "type": "fp16"})";
const std::string PtrFP32 = R"({"name": "p", "type": "*fp32", "alignment": 16})";

} // namespace

TEST_CASE("arguments: a correct launch of the vector add", "[arguments]") {
  CUdeviceptr x = 0x7f0000000000, y = 0x7f0000001000;
  DevicePtr<float> out{0x7f0000002000};
  std::vector<uint64_t> slots = pack(addKernel(), {x, y, out, 98432});
  CHECK(slots[0] == x);
  CHECK(slots[1] == y);
  CHECK(slots[2] == out.Address);
  CHECK(slotAs<int32_t>(slots[3]) == 98432);
  CHECK(slots[3] >> 32 == 0); // the rest of the slot is zero
}

TEST_CASE("arguments: the count must match", "[arguments]") {
  CHECK_THROWS_WITH(
      pack(addKernel(), {CUdeviceptr(0), CUdeviceptr(0), CUdeviceptr(0)}),
      "k: expected 4 arguments (x_ptr: *fp32, y_ptr: *fp32, output_ptr: *fp32, n_elements: i32), "
      "got 3");
  CHECK_THROWS_WITH(
      pack(addKernel(), {CUdeviceptr(0), CUdeviceptr(0), CUdeviceptr(0), 1, 2}),
      "k: expected 4 arguments (x_ptr: *fp32, y_ptr: *fp32, output_ptr: *fp32, n_elements: i32), "
      "got 5");
  CHECK_THROWS_WITH(pack(kernelFromParams(I32), {}), "k: expected 1 argument (n: i32), got 0");
  CHECK_NOTHROW(pack(kernelFromParams(""), {}));
}

TEST_CASE("arguments: pointers", "[arguments]") {
  CHECK(singleError(PtrFP32, 1) ==
        "k: argument 0 (p: *fp32): expected a device pointer (CUdeviceptr, T*, DevicePtr<T>), got "
        "i32 value");
  CHECK(singleError(I32, CUdeviceptr(16)) == "k: argument 0 (n: i32): expected i32, got untyped "
                                             "pointer");
  CHECK(singleError(PtrFP32, DevicePtr<int>{64}) ==
        "k: argument 0 (p: *fp32): expected a pointer to fp32, got pointer to i32 (pass a "
        "CUdeviceptr to skip this check)");
  CHECK(singleError(PtrFP32, reinterpret_cast<double *>(64)) ==
        "k: argument 0 (p: *fp32): expected a pointer to fp32, got pointer to fp64 (pass a "
        "CUdeviceptr to skip this check)");
  CHECK(singleSlot(PtrFP32, reinterpret_cast<const float *>(0x1000)) == 0x1000);
  CHECK(singleSlot(PtrFP32, reinterpret_cast<void *>(0x1000)) == 0x1000);
  CHECK(singleSlot(PtrFP32, DevicePtr<const float>{0x2000}) == 0x2000);
  CHECK(singleSlot(PtrFP32, nullptr) == 0);

  // i1 tensors are bytes: bool, int8 and uint8 buffers all hold them.
  const std::string PtrI1 = R"({"name": "m", "type": "*i1"})";
  CHECK_NOTHROW(singleSlot(PtrI1, DevicePtr<bool>{8}));
  CHECK_NOTHROW(singleSlot(PtrI1, DevicePtr<int8_t>{8}));
  CHECK_NOTHROW(singleSlot(PtrI1, DevicePtr<uint8_t>{8}));
  CHECK(singleError(R"({"name": "m", "type": "*i8"})", DevicePtr<uint8_t>{8}) ==
        "k: argument 0 (m: *i8): expected a pointer to i8, got pointer to u8 (pass a CUdeviceptr "
        "to skip this check)");
}

TEST_CASE("arguments: promised pointer alignment", "[arguments]") {
  CHECK(singleSlot(PtrFP32, CUdeviceptr(0x7f0000000040)) == 0x7f0000000040);
  CHECK(singleError(PtrFP32, CUdeviceptr(0x7f0000000044)) ==
        "k: argument 0 (p: *fp32): the kernel was compiled for 16-byte aligned pointers, and "
        "0x7f0000000044 is not");
  CHECK(singleError(PtrFP32, DevicePtr<float>{0x7f0000000008}) ==
        "k: argument 0 (p: *fp32): the kernel was compiled for 16-byte aligned pointers, and "
        "0x7f0000000008 is not");
  // No promise, no check.
  CHECK(singleSlot(R"({"name": "p", "type": "*fp32"})", CUdeviceptr(0x7f0000000004)) ==
        0x7f0000000004);
}

TEST_CASE("arguments: integers convert when the value fits", "[arguments]") {
  // Widening.
  CHECK(slotAs<int64_t>(singleSlot(I64, int32_t(-5))) == -5);
  CHECK(slotAs<int64_t>(singleSlot(I64, int8_t(-128))) == -128);
  CHECK(slotAs<int64_t>(singleSlot(I64, uint32_t(4000000000u))) == 4000000000);
  CHECK(slotAs<uint32_t>(singleSlot(U32, uint16_t(65535))) == 65535);
  // Narrowing values that fit: sizes are size_t or int64_t in C++ programs.
  CHECK(slotAs<int32_t>(singleSlot(I32, size_t(1) << 30)) == 1 << 30);
  CHECK(slotAs<int32_t>(singleSlot(I32, int64_t(-7))) == -7);
  CHECK(slotAs<uint32_t>(singleSlot(U32, int64_t(4294967295))) == 4294967295u);
  // Only the parameter's bytes are written; the rest of the slot is zero.
  CHECK(singleSlot(I8, -1) == 0xff);
  CHECK(singleSlot(I32, -1) == 0xffffffffu);

  CHECK(singleError(I32, int64_t(5000000000)) ==
        "k: argument 0 (n: i32): the i64 value 5000000000 does not fit in i32");
  CHECK(singleError(I32, size_t(1) << 31) ==
        "k: argument 0 (n: i32): the u64 value 2147483648 does not fit in i32");
  CHECK(singleError(I32, int64_t(std::numeric_limits<int32_t>::min()) - 1) ==
        "k: argument 0 (n: i32): the i64 value -2147483649 does not fit in i32");
  CHECK(slotAs<int32_t>(singleSlot(I32, int64_t(std::numeric_limits<int32_t>::min()))) ==
        std::numeric_limits<int32_t>::min());
  CHECK(singleError(U32, -1) == "k: argument 0 (n: u32): the i32 value -1 does not fit in u32");
  CHECK(singleError(I64, std::numeric_limits<uint64_t>::max()) ==
        "k: argument 0 (n: i64): the u64 value 18446744073709551615 does not fit in i64");
  CHECK(singleError(I8, 128) == "k: argument 0 (n: i8): the i32 value 128 does not fit in i8");
  CHECK(slotAs<uint64_t>(
            singleSlot(R"({"name": "n", "type": "u64"})", std::numeric_limits<uint64_t>::max())) ==
        std::numeric_limits<uint64_t>::max());
}

TEST_CASE("arguments: nothing crosses between integers and floating point", "[arguments]") {
  CHECK(singleError(I32, 1.0f) == "k: argument 0 (n: i32): expected i32, got fp32 value "
                                  "(floating-point values are not converted to integers)");
  CHECK(singleError(I64, 2.0) == "k: argument 0 (n: i64): expected i64, got fp64 value "
                                 "(floating-point values are not converted to integers)");
  CHECK(singleError(FP32, 1) == "k: argument 0 (x: fp32): expected fp32, got i32 value (integers "
                                "are not converted to floating point)");
  CHECK(singleError(FP64, true) == "k: argument 0 (x: fp64): expected fp64, got bool value "
                                   "(integers are not converted to floating point)");
}

TEST_CASE("arguments: floating point only widens", "[arguments]") {
  CHECK(slotAs<float>(singleSlot(FP32, 1.5f)) == 1.5f);
  CHECK(singleSlot(FP32, 1.5f) >> 32 == 0);
  CHECK(slotAs<double>(singleSlot(FP64, 0.1f)) == static_cast<double>(0.1f));
  CHECK(slotAs<double>(singleSlot(FP64, 0.1)) == 0.1);
  CHECK(singleError(FP32, 0.5) == "k: argument 0 (x: fp32): expected fp32, got an fp64 value "
                                  "(narrow it explicitly with static_cast<float>)");
  float nan = std::numeric_limits<float>::quiet_NaN();
  CHECK(std::isnan(slotAs<float>(singleSlot(FP32, nan))));
}

TEST_CASE("arguments: i1 takes bool, 0 and 1", "[arguments]") {
  CHECK(singleSlot(I1, true) == 1);
  CHECK(singleSlot(I1, false) == 0);
  CHECK(singleSlot(I1, 1) == 1);
  CHECK(singleError(I1, 2) == "k: argument 0 (flag: i1): the i32 value 2 does not fit in i1");
  CHECK(singleError(I1, -1) == "k: argument 0 (flag: i1): the i32 value -1 does not fit in i1");
  CHECK(singleError(I32, true) ==
        "k: argument 0 (n: i32): expected i32, got a bool (bool goes to i1 parameters)");
}

TEST_CASE("arguments: promised divisibility", "[arguments]") {
  const std::string Div16 = R"({"name": "n", "type": "i32", "divisibility": 16})";
  CHECK(slotAs<int32_t>(singleSlot(Div16, 4096)) == 4096);
  CHECK(slotAs<int32_t>(singleSlot(Div16, -32)) == -32);
  CHECK(singleSlot(Div16, 0) == 0);
  CHECK(singleError(Div16, 4100) == "k: argument 0 (n: i32): the kernel was compiled for values "
                                    "divisible by 16, and 4100 is not");
  CHECK(singleError(Div16, size_t(33)) == "k: argument 0 (n: i32): the kernel was compiled for "
                                          "values divisible by 16, and 33 is not");
}

TEST_CASE("arguments: types C++ lacks go through Arg::exact", "[arguments]") {
  CHECK(singleSlot(FP16, Arg::exact(DType::FP16, 0x3c00)) == 0x3c00);
  CHECK(singleSlot(R"({"name": "b", "type": "bf16"})", Arg::exact(DType::BF16, 0x3f80)) == 0x3f80);
  CHECK(singleSlot(R"({"name": "f", "type": "fp8e4nv"})", Arg::exact(DType::FP8E4NV, 0x38)) ==
        0x38);
  CHECK(singleSlot(I32, Arg::exact(DType::I32, 0xffffffff)) == 0xffffffff);
  CHECK(singleError(FP16, 1.0f) == "k: argument 0 (h: fp16): expected fp16, got fp32 value (C++ "
                                   "has no fp16 type: pass Arg::exact(DType::FP16, bits))");
  CHECK(singleError(R"({"name": "f", "type": "fp8e5"})", 1.0f) ==
        "k: argument 0 (f: fp8e5): expected fp8e5, got fp32 value (C++ has no fp8e5 type: pass "
        "Arg::exact(DType::FP8E5, bits))");
  CHECK(singleError(FP16, Arg::exact(DType::BF16, 0x3f80)) ==
        "k: argument 0 (h: fp16): expected fp16, got exact bf16 value");
  CHECK(singleError(PtrFP32, Arg::exact(DType::U64, 64)) ==
        "k: argument 0 (p: *fp32): expected a device pointer (CUdeviceptr, T*, DevicePtr<T>), got "
        "exact u64 value");
  CHECK_THROWS_WITH(Arg::exact(DType::FP16, 0x10000), "Arg::exact: 0x10000 has more bits than "
                                                      "fp16 holds");
  CHECK_THROWS_WITH(Arg::exact(DType::I1, 2), "Arg::exact: 0x2 has more bits than i1 holds");
}

TEST_CASE("arguments: each C++ type is the argument kind it looks like", "[arguments]") {
  CHECK(Arg(CUdeviceptr(1)).kind() == Arg::Kind::Pointer);
  CHECK(Arg(uint64_t(1)).kind() == Arg::Kind::Unsigned);
  CHECK(Arg(uint64_t(1)).dtype() == DType::U64);
  CHECK(Arg(int64_t(1)).dtype() == DType::I64);
  CHECK(Arg(1LL).dtype() == DType::I64);
  CHECK(Arg(int16_t(1)).dtype() == DType::I16);
  CHECK(Arg(uint8_t(1)).dtype() == DType::U8);
  CHECK(Arg(1u).dtype() == DType::U32);
  CHECK(Arg(1.0f).dtype() == DType::FP32);
  CHECK(Arg(1.0).dtype() == DType::FP64);
  CHECK(Arg(true).kind() == Arg::Kind::Bool);
  CHECK(Arg(static_cast<float *>(nullptr)).describe() == "pointer to fp32");
  CHECK(Arg(static_cast<void *>(nullptr)).describe() == "untyped pointer");
  CHECK_FALSE(std::is_convertible_v<char, Arg>);
}
