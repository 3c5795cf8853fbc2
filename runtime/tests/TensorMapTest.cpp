//===- TensorMapTest.cpp - TMA tensor maps of tensor descriptor arguments -===//
//
// The metadata member tensor_maps (docs/metadata.md) and the arguments of cuTensorMapEncodeTiled
// that a launch computes from a descriptor's parameters, without a driver. The launch itself
// (the maps appended after the parameters) runs on the fake driver: runtime.fault.tensor_map.
//
//===----------------------------------------------------------------------===//

#include "tilec/runtime.hpp"

#include <catch2/catch.hpp>
#include <string>
#include <vector>

using namespace tilec::rt;
using Catch::Matchers::Contains;

namespace {

/// `def k(x, a, b)` with -s "*fp32,tensordesc<fp16[64, 32]>,tensordesc<fp32[2, 8, 16]>" (the
/// promises of the descriptors' parameters left out, so that the TMA checks are reached), and
/// the members of its kernel object after "params" replaced by \p maps (and what follows).
std::string document(const std::string &maps) {
  return R"({"schema": "tilec-metadata", "version": 3, "target": "sm_90a", "kernels": [
      {"name": "k", "entry": "k", "num_warps": 4, "threads_per_block": 128,
       "shared_memory_bytes": 0, "params": [
         {"name": "x", "type": "*fp32"},
         {"name": "a.base", "type": "*fp16"},
         {"name": "a.shape.0", "type": "i64"}, {"name": "a.shape.1", "type": "i64"},
         {"name": "a.strides.0", "type": "i64"}, {"name": "a.strides.1", "type": "i64"},
         {"name": "a.padding_nan", "type": "i1"},
         {"name": "b.base", "type": "*fp32"},
         {"name": "b.shape.0", "type": "i64"}, {"name": "b.shape.1", "type": "i64"},
         {"name": "b.shape.2", "type": "i64"},
         {"name": "b.strides.0", "type": "i64"}, {"name": "b.strides.1", "type": "i64"},
         {"name": "b.strides.2", "type": "i64"},
         {"name": "b.padding_nan", "type": "i1"}],
       "tensor_descriptors": [
         {"name": "a", "dtype": "fp16", "block_shape": [64, 32], "first_param": 1},
         {"name": "b", "dtype": "fp32", "block_shape": [2, 8, 16], "first_param": 7}])" +
         maps + "}]}";
}

const char *const TwoMaps = R"(,
       "tensor_maps": [
         {"descriptor": 0, "box": [64, 32], "swizzle": 64, "element": "fp16", "fill": "zero"},
         {"descriptor": 1, "box": [1, 8, 16], "swizzle": 0, "element": "fp32", "fill": "nan"}])";

const KernelInfo &mapKernel() {
  static const Metadata metadata = Metadata::parse(document(TwoMaps), "k.json");
  return metadata.Kernels[0];
}

/// The packed slots of a launch: x, then a (100 x 72, row stride 80), then b (3 x 10 x 40,
/// strides 512 and 48).
std::vector<uint64_t> slots() {
  std::vector<Arg> args = {DevicePtr<float>{0x1000},
                           DevicePtr<fp16>{0x20000},
                           100,
                           72,
                           80,
                           1,
                           false,
                           DevicePtr<float>{0x30000},
                           3,
                           10,
                           40,
                           512,
                           48,
                           1,
                           true};
  std::vector<uint64_t> packed(args.size());
  packArguments(mapKernel(), args.data(), args.size(), packed.data());
  return packed;
}

std::string mapError(const std::string &map) {
  try {
    Metadata::parse(document(",\n\"tensor_maps\": [" + map + "]"), "k.json");
  } catch (const Error &error) {
    return error.what();
  }
  return "(no error)";
}

} // namespace

TEST_CASE("tensor maps: the metadata member", "[tensormap]") {
  const KernelInfo &k = mapKernel();
  REQUIRE(k.TensorMaps.size() == 2);
  CHECK(k.TensorMaps[0].Descriptor == 0);
  CHECK(k.TensorMaps[0].Box == std::vector<uint32_t>{64, 32});
  CHECK(k.TensorMaps[0].Swizzle == 64);
  CHECK(k.TensorMaps[0].Element == DType::FP16);
  CHECK(k.TensorMaps[0].FillNan == false);
  CHECK(k.TensorMaps[1].Descriptor == 1);
  CHECK(k.TensorMaps[1].Box == std::vector<uint32_t>{1, 8, 16});
  CHECK(k.TensorMaps[1].Swizzle == 0);
  CHECK(k.TensorMaps[1].Element == DType::FP32);
  CHECK(k.TensorMaps[1].FillNan == true);
  // Absent: none.
  CHECK(Metadata::parse(document("")).Kernels[0].TensorMaps.empty());
}

TEST_CASE("tensor maps: what the metadata reader refuses", "[tensormap]") {
  auto map = [](const std::string &descriptor, const std::string &box, const std::string &swizzle,
                const std::string &element, const std::string &fill) {
    return mapError(R"({"descriptor": )" + descriptor + R"(, "box": )" + box + R"(, "swizzle": )" +
                    swizzle + R"(, "element": )" + element + R"(, "fill": )" + fill + "}");
  };
  const std::string good = map("0", "[64, 32]", "64", "\"fp16\"", "\"zero\"");
  CHECK(good == "(no error)");
  CHECK_THAT(map("2", "[64, 32]", "64", "\"fp16\"", "\"zero\""),
             Contains("kernels[0].tensor_maps[0].descriptor is 2, outside [0, 1]"));
  CHECK_THAT(map("-1", "[64, 32]", "64", "\"fp16\"", "\"zero\""), Contains("outside [0, 1]"));
  CHECK_THAT(map("0", "[64]", "64", "\"fp16\"", "\"zero\""),
             Contains("tensor_maps[0].box has 1 dimensions, and descriptor a has 2"));
  CHECK_THAT(map("0", "[64, 0]", "64", "\"fp16\"", "\"zero\""),
             Contains("box must hold integers from 1 to 256"));
  CHECK_THAT(map("0", "[257, 32]", "64", "\"fp16\"", "\"zero\""),
             Contains("box must hold integers from 1 to 256"));
  CHECK_THAT(map("0", "[64, 4]", "0", "\"fp16\"", "\"zero\""),
             Contains("innermost dimension of 8 bytes, not a multiple of 16"));
  CHECK_THAT(map("0", "[64, 32]", "16", "\"fp16\"", "\"zero\""),
             Contains("swizzle is 16, not 0, 32, 64 or 128"));
  CHECK_THAT(map("0", "[64, 32]", "256", "\"fp16\"", "\"zero\""), Contains("outside [0, 128]"));
  CHECK_THAT(map("0", "[64, 32]", "32", "\"fp16\"", "\"zero\""),
             Contains("swizzle is 32 bytes, less than the box's innermost 64 bytes"));
  CHECK_THAT(map("0", "[64, 32]", "64", "\"f16\"", "\"zero\""),
             Contains("element is \"f16\", not an element type of a tensor map"));
  CHECK_THAT(map("0", "[64, 32]", "64", "\"i1\"", "\"zero\""),
             Contains("not an element type of a tensor map"));
  CHECK_THAT(map("0", "[64, 32]", "64", "\"fp32\"", "\"zero\""),
             Contains("element is fp32 (4 bytes), and descriptor a holds fp16 (2 bytes)"));
  CHECK(map("0", "[64, 32]", "64", "\"bf16\"", "\"zero\"") == "(no error)"); // the same size
  CHECK_THAT(map("0", "[64, 32]", "64", "\"fp16\"", "\"zeros\""),
             Contains("fill is \"zeros\", not \"zero\" or \"nan\""));
  CHECK_THAT(map("0", "[64, 32]", "64", "\"i16\"", "\"nan\""),
             Contains("TMA fills with NaN only fp16, bf16, fp32 and fp64 elements, not i16"));
  CHECK_THAT(mapError(R"({"descriptor": 0, "box": [64, 32], "element": "fp16", "fill": "zero"})"),
             Contains("tensor_maps[0] has no member \"swizzle\""));
  CHECK_THAT(map("0", "[64, 32]", "64", "\"fp16\"", "1"), Contains("fill must be a string"));
  // "fill" is optional (the compiler leaves it out): the launch's padding_nan decides.
  CHECK(mapError(R"({"descriptor": 0, "box": [64, 32], "swizzle": 64, "element": "i16"})") ==
        "(no error)");
  CHECK_THAT(mapError("[]"), Contains("tensor_maps[0] must be an object"));
  // Locations are reported as for every member.
  CHECK_THAT(map("0", "[64, 32]", "64", "\"fp16\"", "\"zeros\""), Contains("k.json:"));
  // A kernel without descriptors has no maps.
  std::string noDescriptors =
      R"({"schema": "tilec-metadata", "version": 3, "target": "sm_90a", "kernels": [
      {"name": "k", "entry": "k", "num_warps": 4, "threads_per_block": 128,
       "shared_memory_bytes": 0, "params": [], "tensor_maps": [{"descriptor": 0}]}]})";
  CHECK_THROWS_WITH(Metadata::parse(noDescriptors),
                    Contains("describes a map of a tensor descriptor, and the kernel has none"));
}

TEST_CASE("tensor maps: variants take the kernel's maps or their own", "[tensormap]") {
  std::string variants = std::string(TwoMaps) + R"(,
       "autotune_key": [],
       "variants": [
         {"entry": "k__0", "num_warps": 4, "threads_per_block": 128, "shared_memory_bytes": 0},
         {"entry": "k__1", "num_warps": 4, "threads_per_block": 128, "shared_memory_bytes": 0,
          "tensor_maps": [{"descriptor": 1, "box": [2, 8, 16], "swizzle": 64,
                           "element": "fp32", "fill": "zero"}]}])";
  // Version 3 has the members of version 2 (variants) too.
  std::string text = document(variants);
  Metadata metadata = Metadata::parse(text);
  CHECK(metadata.Version == 3);
  const KernelInfo &k = metadata.Kernels[0];
  REQUIRE(k.Variants.size() == 2);
  CHECK(k.Variants[0].TensorMaps.size() == 2);
  CHECK(k.Variants[0].TensorDescriptors.size() == 2);
  REQUIRE(k.Variants[1].TensorMaps.size() == 1);
  CHECK(k.Variants[1].TensorMaps[0].Box == std::vector<uint32_t>{2, 8, 16});
  // `[]`: a variant whose .entry takes no maps (its loop loads without TMA).
  std::string none = document(std::string(TwoMaps) + R"(,
       "autotune_key": [],
       "variants": [
         {"entry": "k__0", "num_warps": 4, "threads_per_block": 128, "shared_memory_bytes": 0},
         {"entry": "k__1", "num_warps": 4, "threads_per_block": 128, "shared_memory_bytes": 0,
          "tensor_maps": []}])");
  Metadata withNone = Metadata::parse(none);
  CHECK(withNone.Kernels[0].Variants[0].TensorMaps.size() == 2);
  CHECK(withNone.Kernels[0].Variants[1].TensorMaps.empty());
}

TEST_CASE("tensor maps: a member of version 3", "[tensormap]") {
  // A version 1 or 2 reader ignores tensor_maps and would launch the kernel without its maps:
  // a file of an older version that has them is refused.
  auto withVersion = [](std::string text, const char *version) {
    text.replace(text.find("\"version\": 3"), 12, std::string("\"version\": ") + version);
    return text;
  };
  std::string v1 = withVersion(document(TwoMaps), "1");
  CHECK_THROWS_WITH(Metadata::parse(v1, "k.json"),
                    Contains("k.json:") &&
                        Contains("kernels[0].tensor_maps is a version 3 member") &&
                        Contains("the file says version 1"));
  std::string variantMaps = std::string(R"(,
       "autotune_key": [],
       "variants": [
         {"entry": "k__0", "num_warps": 4, "threads_per_block": 128, "shared_memory_bytes": 0},
         {"entry": "k__1", "num_warps": 4, "threads_per_block": 128, "shared_memory_bytes": 0,
          "tensor_maps": [{"descriptor": 1, "box": [2, 8, 16], "swizzle": 64,
                           "element": "fp32"}]}])");
  CHECK_THROWS_WITH(Metadata::parse(withVersion(document(variantMaps), "2"), "k.json"),
                    Contains("kernels[0].variants[1].tensor_maps is a version 3 member") &&
                        Contains("the file says version 2"));
  CHECK(Metadata::parse(document(variantMaps)).Kernels[0].Variants[1].TensorMaps.size() == 1);
  // Version 3 without maps is read as well (the compiler writes 1 or 2 then, but it is valid).
  CHECK(Metadata::parse(document(R"(, "constexprs": [])")).Kernels[0].TensorMaps.empty());
}

TEST_CASE("tensor maps: the arguments of cuTensorMapEncodeTiled", "[tensormap]") {
  std::vector<uint64_t> packed = slots();
  TensorMapEncodeArgs a = tensorMapEncodeArgs(mapKernel(), 0, packed.data());
  CHECK(a.DataType == CU_TENSOR_MAP_DATA_TYPE_FLOAT16);
  CHECK(a.DataType == 6);
  CHECK(a.Rank == 2);
  CHECK(a.GlobalAddress == 0x20000);
  CHECK(a.GlobalDim == std::array<uint64_t, 5>{72, 100, 0, 0, 0}); // innermost first
  CHECK(a.GlobalStrides == std::array<uint64_t, 4>{160, 0, 0, 0}); // bytes, rank - 1
  CHECK(a.BoxDim == std::array<uint32_t, 5>{32, 64, 0, 0, 0});
  CHECK(a.ElementStrides == std::array<uint32_t, 5>{1, 1, 0, 0, 0});
  CHECK(a.Interleave == CU_TENSOR_MAP_INTERLEAVE_NONE);
  CHECK(a.Swizzle == CU_TENSOR_MAP_SWIZZLE_64B);
  CHECK(a.Swizzle == 2);
  CHECK(a.L2Promotion == CU_TENSOR_MAP_L2_PROMOTION_L2_128B);
  CHECK(a.L2Promotion == 2);
  CHECK(a.OobFill == CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);

  TensorMapEncodeArgs b = tensorMapEncodeArgs(mapKernel(), 1, packed.data());
  CHECK(b.DataType == CU_TENSOR_MAP_DATA_TYPE_FLOAT32);
  CHECK(b.Rank == 3);
  CHECK(b.GlobalAddress == 0x30000);
  CHECK(b.GlobalDim == std::array<uint64_t, 5>{40, 10, 3, 0, 0});
  CHECK(b.GlobalStrides == std::array<uint64_t, 4>{192, 2048, 0, 0}); // 48 * 4, 512 * 4
  CHECK(b.BoxDim == std::array<uint32_t, 5>{16, 8, 1, 0, 0});
  CHECK(b.ElementStrides == std::array<uint32_t, 5>{1, 1, 1, 0, 0});
  CHECK(b.Swizzle == CU_TENSOR_MAP_SWIZZLE_NONE);
  CHECK(b.OobFill == CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA);
  CHECK(b.OobFill == 1);
}

TEST_CASE("tensor maps: without \"fill\", the descriptor's padding_nan decides", "[tensormap]") {
  // One descriptor of \p element (1-D, 128 elements), its map without "fill".
  auto kernel = [](const std::string &element, const std::string &fill) {
    return Metadata::parse(
        R"({"schema": "tilec-metadata", "version": 3, "target": "sm_90a", "kernels": [
      {"name": "k", "entry": "k", "num_warps": 4, "threads_per_block": 128,
       "shared_memory_bytes": 0, "params": [
         {"name": "a.base", "type": "*)" +
        element + R"("}, {"name": "a.shape.0", "type": "i64"},
         {"name": "a.strides.0", "type": "i64"}, {"name": "a.padding_nan", "type": "i1"}],
       "tensor_descriptors": [{"name": "a", "block_shape": [128], "first_param": 0}],
       "tensor_maps": [{"descriptor": 0, "box": [128], "swizzle": 0, "element": ")" +
        element + "\"" + fill + "}]}]}");
  };
  auto fill = [](const Metadata &metadata, bool paddingNan) {
    std::vector<Arg> args = {CUdeviceptr{0x10000}, 1000, 1, paddingNan};
    uint64_t packed[4] = {};
    packArguments(metadata.Kernels[0], args.data(), args.size(), packed);
    return tensorMapEncodeArgs(metadata.Kernels[0], 0, packed).OobFill;
  };
  Metadata fp16 = kernel("fp16", "");
  CHECK_FALSE(fp16.Kernels[0].TensorMaps[0].FillNan.has_value());
  CHECK(fill(fp16, false) == CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  CHECK(fill(fp16, true) == CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA);
  // Integers and fp8 pad with zeros whatever the flag says (TMA fills only floats with NaN).
  CHECK(fill(kernel("i8", ""), true) == CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  CHECK(fill(kernel("i8", ""), false) == CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  for (const char *element : {"bf16", "fp32", "fp64"}) {
    INFO(element);
    CHECK(fill(kernel(element, ""), true) == CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA);
  }
  for (const char *element : {"fp8e4nv", "fp8e5", "u8", "i16", "u16", "i32", "u32", "i64", "u64"}) {
    INFO(element);
    CHECK(fill(kernel(element, ""), true) == CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  }
  // "fill" overrides the flag.
  CHECK(fill(kernel("fp16", R"(, "fill": "zero")"), true) == CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  CHECK(fill(kernel("fp16", R"(, "fill": "nan")"), false) ==
        CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA);
}

TEST_CASE("tensor maps: the data type of each element type", "[tensormap]") {
  struct Case {
    const char *Element;
    const char *Descriptor;
    int DataType;
  };
  const Case cases[] = {
      {"fp16", "fp16", 6},       {"bf16", "bf16", 9},   {"fp32", "fp32", 7}, {"fp64", "fp64", 8},
      {"fp8e4nv", "fp8e4nv", 0}, {"fp8e5", "fp8e5", 0}, {"i8", "i8", 0},     {"u8", "u8", 0},
      {"i16", "i16", 1},         {"u16", "u16", 1},     {"i32", "i32", 3},   {"u32", "u32", 2},
      {"i64", "i64", 5},         {"u64", "u64", 4},
  };
  for (const Case &c : cases) {
    INFO(c.Element);
    std::string json =
        std::string(R"({"schema": "tilec-metadata", "version": 3, "target": "sm_90a", "kernels": [
      {"name": "k", "entry": "k", "num_warps": 4, "threads_per_block": 128,
       "shared_memory_bytes": 0, "params": [
         {"name": "a.base", "type": "*)") +
        c.Descriptor + R"("}, {"name": "a.shape.0", "type": "i64"},
         {"name": "a.strides.0", "type": "i64"}, {"name": "a.padding_nan", "type": "i1"}],
       "tensor_descriptors": [{"name": "a", "block_shape": [128], "first_param": 0}],
       "tensor_maps": [{"descriptor": 0, "box": [128], "swizzle": 0, "element": ")" +
        c.Element + R"(", "fill": "zero"}]}]})";
    Metadata metadata = Metadata::parse(json);
    uint64_t packed[4] = {0x10000, 1000, 1, 0};
    TensorMapEncodeArgs args = tensorMapEncodeArgs(metadata.Kernels[0], 0, packed);
    CHECK(static_cast<int>(args.DataType) == c.DataType);
    CHECK(args.Rank == 1);
    CHECK(args.GlobalDim[0] == 1000);
    CHECK(args.BoxDim[0] == 128);
  }
}

TEST_CASE("tensor maps: descriptors TMA cannot describe", "[tensormap]") {
  std::vector<uint64_t> good = slots();
  auto error = [](std::vector<uint64_t> packed, size_t map) {
    try {
      tensorMapEncodeArgs(mapKernel(), map, packed.data());
    } catch (const Error &e) {
      CHECK(e.cudaResult() == CUDA_SUCCESS);
      return std::string(e.what());
    }
    return std::string("(no error)");
  };
  CHECK(error(good, 0) == "(no error)");
  std::vector<uint64_t> p = good;
  p[1] = 0x20008;
  CHECK(error(p, 0) == "k: argument 1 (a.base: *fp16) is 0x20008; the kernel was compiled to load "
                       "tensor descriptor a with TMA, which needs a 16-byte aligned base");
  p = good;
  p[3] = 0;
  CHECK(error(p, 0) == "k: argument 3 (a.shape.1: i64) is 0; the kernel was compiled to load "
                       "tensor descriptor a with TMA, and a TMA-loaded descriptor cannot have an "
                       "empty dimension (each must be at least 1)");
  p = good;
  p[2] = static_cast<uint64_t>(-5);
  CHECK_THAT(error(p, 0), Contains("argument 2 (a.shape.0: i64) is -5;"));
  p = good;
  p[2] = (uint64_t(1) << 32) + 1;
  CHECK_THAT(error(p, 0), Contains("is 4294967297; the kernel was compiled to load tensor "
                                   "descriptor a with TMA, which allows at most 2^32 elements"));
  p[2] = uint64_t(1) << 32; // the limit itself is fine
  CHECK(error(p, 0) == "(no error)");
  p = good;
  p[4] = 81; // 162 bytes
  CHECK(error(p, 0) == "k: argument 4 (a.strides.0: i64) is 81 (162 bytes); the kernel was "
                       "compiled to load tensor descriptor a with TMA, which needs every stride "
                       "but the last a multiple of 16 bytes");
  p[4] = static_cast<uint64_t>(-8);
  CHECK_THAT(error(p, 0), Contains("is -8; the kernel was compiled to load tensor descriptor a "
                                   "with TMA, which cannot describe negative strides"));
  p[4] = uint64_t(1) << 39; // 2^40 bytes of fp16
  CHECK_THAT(error(p, 0), Contains("is 549755813888 (2-byte elements)"));
  CHECK_THAT(error(p, 0), Contains("below 2^40 bytes"));
  p[4] = (uint64_t(1) << 39) - 8; // 2^40 - 16 bytes
  CHECK(error(p, 0) == "(no error)");
  // The second descriptor: its middle stride (fp32 elements).
  p = good;
  p[12] = 50; // 200 bytes
  CHECK_THAT(error(p, 1), Contains("argument 12 (b.strides.1: i64) is 50 (200 bytes)"));
  CHECK(error(p, 0) == "(no error)"); // a's map does not look at b
}
