//===- TensorDescriptorTest.cpp - TensorDescriptor launch arguments -------===//

#include "tilec/runtime.hpp"

#include <catch2/catch.hpp>
#include <string>
#include <vector>

using namespace tilec::rt;
using Catch::Matchers::Contains;

namespace {

/// The metadata tilec writes for `def k(desc, n)` with -s "tensordesc<fp16[32, 64]>,i32".
const KernelInfo &descKernel() {
  static const Metadata metadata = Metadata::parse(
      R"({"schema": "tilec-metadata", "version": 1, "target": "sm_90a", "kernels": [
          {"name": "k", "entry": "k", "num_warps": 4, "threads_per_block": 128,
           "shared_memory_bytes": 0, "params": [
             {"name": "desc.base", "type": "*fp16", "alignment": 16},
             {"name": "desc.shape.0", "type": "i64", "divisibility": 0},
             {"name": "desc.shape.1", "type": "i64", "divisibility": 0},
             {"name": "desc.strides.0", "type": "i64", "divisibility": 8},
             {"name": "desc.strides.1", "type": "i64", "divisibility": 0},
             {"name": "desc.padding_nan", "type": "i1", "divisibility": 0},
             {"name": "n", "type": "i32", "divisibility": 0}],
           "tensor_descriptors": [{"name": "desc", "signature": "tensordesc<fp16[32, 64]>",
             "dtype": "fp16", "block_shape": [32, 64], "first_param": 0}]}]})");
  return metadata.Kernels[0];
}

std::vector<uint64_t> pack(const std::vector<Arg> &given) {
  std::vector<Arg> args = expandTensorDescriptors(descKernel(), given.data(), given.size());
  std::vector<uint64_t> slots(args.size(), 0xdeadbeefdeadbeefull);
  packArguments(descKernel(), args.data(), args.size(), slots.data());
  return slots;
}

} // namespace

TEST_CASE("tensor descriptors: the metadata names the run of parameters", "[descriptor]") {
  REQUIRE(descKernel().TensorDescriptors.size() == 1);
  const TensorDescInfo &desc = descKernel().TensorDescriptors[0];
  CHECK(desc.Name == "desc");
  CHECK(desc.Element == DType::FP16);
  CHECK(desc.BlockShape == std::vector<int64_t>{32, 64});
  CHECK(desc.FirstParam == 0);
}

TEST_CASE("tensor descriptors: one TensorDescriptor packs as its parameters", "[descriptor]") {
  TensorDescriptor desc{
      DevicePtr<fp16>{0x10000}, {100, 72}, {80, 1}, {32, 64}, TensorDescriptor::Padding::Nan};
  std::vector<uint64_t> slots = pack({desc, 5});
  REQUIRE(slots.size() == 7);
  CHECK(slots[0] == 0x10000);
  CHECK(slots[1] == 100);
  CHECK(slots[2] == 72);
  CHECK(slots[3] == 80);
  CHECK(slots[4] == 1);
  CHECK((slots[5] & 0xff) == 1); // NaN padding
  CHECK((slots[6] & 0xffffffff) == 5);
  // The same, parameter by parameter.
  std::vector<Arg> flat = {DevicePtr<fp16>{0x10000}, 100, 72, 80, 1, false, 5};
  std::vector<uint64_t> one(flat.size());
  packArguments(descKernel(), flat.data(), flat.size(), one.data());
  CHECK((one[5] & 0xff) == 0);
}

TEST_CASE("tensor descriptors: Triton's rules are checked at launch", "[descriptor]") {
  auto with = [](TensorDescriptor desc) { return pack({desc, 5}); };
  TensorDescriptor good{DevicePtr<fp16>{0x10000}, {100, 72}, {80, 1}, {32, 64}};
  TensorDescriptor d = good;
  d.BlockShape = {64, 64};
  CHECK_THROWS_WITH(with(d), Contains("compiled for block shape [32, 64], got [64, 64]"));
  d = good;
  d.Shape = {100};
  CHECK_THROWS_WITH(with(d), Contains("takes a rank-2 descriptor"));
  d = good;
  d.Strides = {1, 80};
  CHECK_THROWS_WITH(with(d), Contains("the last stride must be 1"));
  d = good;
  d.Strides = {81, 1}; // 81 fp16 elements are not a multiple of 16 bytes
  CHECK_THROWS_WITH(with(d), Contains("divisible by 8, and 81 is not"));
  d = good;
  d.Base = DevicePtr<fp16>{0x10008};
  CHECK_THROWS_WITH(with(d), Contains("16-byte aligned"));
  d = good;
  d.Base = DevicePtr<float>{0x10000};
  CHECK_THROWS_WITH(with(d), Contains("expected a pointer to fp16"));
  // A descriptor where the kernel has none, and a flat last stride that is not 1.
  CHECK_THROWS_WITH(pack({good, good}), Contains("not the first of a tensordesc<...> argument"));
  std::vector<Arg> flat = {DevicePtr<fp16>{0x10000}, 100, 72, 80, 2, false, 5};
  std::vector<uint64_t> slots(flat.size());
  CHECK_THROWS_WITH(packArguments(descKernel(), flat.data(), flat.size(), slots.data()),
                    Contains("the last stride of a tensor descriptor must be 1, got 2"));
}
