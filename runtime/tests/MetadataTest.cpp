//===- MetadataTest.cpp - Reading and validating metadata files -----------===//

#include "tilec/runtime.hpp"

#include <catch2/catch.hpp>
#include <string>

using namespace tilec::rt;

namespace {

// The example of docs/metadata.md.
const char *const VectorAddMetadata = R"({
  "schema": "tilec-metadata",
  "version": 1,
  "compiler": "tilec 0.1.0",
  "source": "samples/vector_add.tl",
  "target": "sm_90a",
  "kernels": [
    {
      "name": "add_kernel",
      "entry": "add_kernel",
      "num_warps": 4,
      "threads_per_block": 128,
      "shared_memory_bytes": 0,
      "params": [
        {"name": "x_ptr", "type": "*fp32", "alignment": 16},
        {"name": "y_ptr", "type": "*fp32", "alignment": 16},
        {"name": "output_ptr", "type": "*fp32", "alignment": 16},
        {"name": "n_elements", "type": "i32", "divisibility": 0}
      ],
      "constexprs": [{"name": "BLOCK_SIZE", "value": "1024"}]
    }
  ]
})";

/// A one-kernel document whose kernel object is \p kernel.
std::string withKernel(const std::string &kernel) {
  return R"({"schema": "tilec-metadata", "version": 1, "target": "sm_90a", "kernels": [)" + kernel +
         "]}";
}

/// A kernel object with the given parameter objects.
std::string kernelWithParams(const std::string &params) {
  return R"({"name": "k", "entry": "k_entry", "num_warps": 1, "threads_per_block": 32,
             "shared_memory_bytes": 0, "params": [)" +
         params + "]}";
}

std::string errorOf(const std::string &json) {
  try {
    Metadata::parse(json, "m.json");
  } catch (const Error &error) {
    CHECK(error.cudaResult() == CUDA_SUCCESS);
    return error.what();
  }
  return "(no error)";
}

} // namespace

TEST_CASE("metadata: the documented example", "[metadata]") {
  Metadata metadata = Metadata::parse(VectorAddMetadata, "vector_add.json");
  CHECK(metadata.Version == 1);
  CHECK(metadata.Compiler == "tilec 0.1.0");
  CHECK(metadata.Source == "samples/vector_add.tl");
  CHECK(metadata.Target == "sm_90a");
  REQUIRE(metadata.Kernels.size() == 1);
  const KernelInfo &kernel = metadata.kernel("add_kernel");
  CHECK(kernel.Entry == "add_kernel");
  CHECK(kernel.NumWarps == 4);
  CHECK(kernel.ThreadsPerBlock == 128);
  CHECK(kernel.SharedMemoryBytes == 0);
  REQUIRE(kernel.Params.size() == 4);
  CHECK(kernel.Params[0].Name == "x_ptr");
  CHECK(kernel.Params[0].Type == ParamType{DType::FP32, true});
  CHECK(kernel.Params[0].Alignment == 16);
  CHECK(kernel.Params[3].Name == "n_elements");
  CHECK(kernel.Params[3].Type == ParamType{DType::I32, false});
  CHECK(kernel.Params[3].Divisibility == 0);
  REQUIRE(kernel.findConstexpr("BLOCK_SIZE"));
  CHECK(kernel.findConstexpr("BLOCK_SIZE")->Value == "1024");
  CHECK(kernel.findConstexpr("NOPE") == nullptr);
}

TEST_CASE("metadata: every type of the Triton signature", "[metadata]") {
  const char *names[] = {"i1",  "i8",   "i16",  "i32",  "i64",  "u8",      "u16",   "u32",
                         "u64", "fp16", "bf16", "fp32", "fp64", "fp8e4nv", "fp8e5", "fp8e4b15"};
  for (const char *name : names) {
    INFO(name);
    std::optional<ParamType> scalar = ParamType::parse(name);
    REQUIRE(scalar);
    CHECK_FALSE(scalar->IsPointer);
    CHECK(scalar->str() == name);
    std::optional<ParamType> pointer = ParamType::parse(std::string("*") + name);
    REQUIRE(pointer);
    CHECK(pointer->IsPointer);
    CHECK(pointer->Element == scalar->Element);
    CHECK(pointer->str() == std::string("*") + name);
  }
  for (const char *bad : {"", "*", "**fp32", "f32", "float", "int32", "i32 ", "FP32", "*i"})
    CHECK_FALSE(ParamType::parse(bad));
  CHECK(dtypeBytes(DType::I1) == 1);
  CHECK(dtypeBytes(DType::BF16) == 2);
  CHECK(dtypeBytes(DType::U64) == 8);
  CHECK(dtypeBytes(DType::FP8E5) == 1);
  CHECK(dtypeBytes(DType::FP8E4B15) == 1);
}

TEST_CASE("metadata: unknown members are ignored", "[metadata]") {
  std::string json = R"({"schema": "tilec-metadata", "version": 1, "target": "sm_80",
    "future": {"x": [1, 2]},
    "kernels": [{"name": "k", "entry": "e", "num_warps": 8, "threads_per_block": 256,
                 "shared_memory_bytes": 98304, "params": [], "registers": 40}]})";
  Metadata metadata = Metadata::parse(json);
  REQUIRE(metadata.Kernels.size() == 1);
  CHECK(metadata.Kernels[0].SharedMemoryBytes == 98304);
  CHECK(metadata.Kernels[0].Constexprs.empty());
  CHECK(metadata.Compiler.empty());
}

TEST_CASE("metadata: unknown kernel names list the available ones", "[metadata]") {
  Metadata metadata = Metadata::parse(VectorAddMetadata);
  CHECK(metadata.findKernel("add_kernel"));
  CHECK_FALSE(metadata.findKernel("sub_kernel"));
  CHECK_THROWS_WITH(metadata.kernel("sub_kernel"),
                    "no kernel named 'sub_kernel' in the metadata of samples/vector_add.tl; "
                    "available: add_kernel");
  Metadata empty = Metadata::parse(
      R"({"schema": "tilec-metadata", "version": 1, "target": "sm_90", "kernels": []})");
  CHECK_THROWS_WITH(empty.kernel("k"), "no kernel named 'k' in the metadata (it has no kernels)");
}

TEST_CASE("metadata: invalid JSON is reported with the file's name and position", "[metadata]") {
  CHECK(errorOf("{\"schema\": \"tilec-metadata\",\n \"version\": 1,,}") ==
        "m.json:2:15: invalid JSON: expected a member name in double quotes, found ','");
  CHECK(errorOf("") == "m.json:1:1: invalid JSON: expected a value, found end of input");
}

TEST_CASE("metadata: the document's own members", "[metadata]") {
  CHECK(errorOf("[]") == "m.json:1:1: the metadata must be an object, not an array");
  CHECK(errorOf("{}") == "m.json:1:1: the metadata has no member \"schema\"");
  CHECK(errorOf(R"({"schema": "other", "version": 1})") ==
        "m.json:1:12: schema is \"other\", expected \"tilec-metadata\"");
  CHECK(errorOf(R"({"schema": "tilec-metadata", "version": 5})") ==
        "m.json:1:41: version is 5; this runtime reads versions 1 to 4 (the file was written by a "
        "newer tilec)");
  CHECK(errorOf(R"({"schema": "tilec-metadata", "version": "1"})") ==
        "m.json:1:41: version must be a positive integer");
  CHECK(errorOf(R"({"schema": "tilec-metadata", "version": 1.0})") ==
        "m.json:1:41: version must be a positive integer");
  CHECK(errorOf(R"({"schema": "tilec-metadata", "version": 1, "kernels": []})") ==
        "m.json:1:1: the metadata has no member \"target\"");
  CHECK(errorOf(R"({"schema": "tilec-metadata", "version": 1, "target": "sm_90"})") ==
        "m.json:1:1: the metadata has no member \"kernels\"");
  CHECK(errorOf(R"({"schema": "tilec-metadata", "version": 1, "target": 90, "kernels": []})") ==
        "m.json:1:54: target must be a string, not a number");
  CHECK(
      errorOf(R"({"schema": "tilec-metadata", "version": 1, "target": "sm_90", "kernels": {}})") ==
      "m.json:1:74: kernels must be an array, not an object");
  CHECK(errorOf(R"({"schema": "tilec-metadata", "version": 1, "target": "sm_90", "kernels": [],
                    "compiler": 1})") == "m.json:2:33: compiler must be a string, not a number");
}

TEST_CASE("metadata: kernels", "[metadata]") {
  CHECK(errorOf(withKernel("3")) == "m.json:1:76: kernels[0] must be an object, not a number");
  CHECK(errorOf(withKernel("{}")) == "m.json:1:76: kernels[0] has no member \"name\"");
  CHECK(errorOf(withKernel(R"({"name": ""})")) == "m.json:1:85: kernels[0].name must not be empty");
  CHECK(errorOf(withKernel(R"({"name": "k", "entry": "e"})")) ==
        "m.json:1:76: kernels[0] has no member \"num_warps\"");
  CHECK(errorOf(withKernel(R"({"name": "k", "entry": "e", "num_warps": 0})")) ==
        "m.json:1:117: kernels[0].num_warps is 0, outside [1, 32]");
  CHECK(errorOf(withKernel(R"({"name": "k", "entry": "e", "num_warps": 64})")) ==
        "m.json:1:117: kernels[0].num_warps is 64, outside [1, 32]");
  CHECK(errorOf(withKernel(R"({"name": "k", "entry": "e", "num_warps": 2.5})")) ==
        "m.json:1:117: kernels[0].num_warps must be an integer");
  CHECK(errorOf(withKernel(R"({"name": "k", "entry": "e", "num_warps": 4,
                              "threads_per_block": 64})")) ==
        "m.json:2:52: kernels[0].threads_per_block is 64, but num_warps 4 means 128");
  CHECK(errorOf(withKernel(R"({"name": "k", "entry": "e", "num_warps": 1, "threads_per_block": 32,
                              "shared_memory_bytes": -1})")) ==
        "m.json:2:54: kernels[0].shared_memory_bytes is -1, outside [0, 2147483647]");
  CHECK(errorOf(withKernel(R"({"name": "k", "entry": "e", "num_warps": 1, "threads_per_block": 32,
                              "shared_memory_bytes": 0})")) ==
        "m.json:1:76: kernels[0] has no member \"params\"");
  std::string kernel = kernelWithParams("");
  CHECK(errorOf(withKernel(kernel + ", " + kernel)).find("kernels[1] a second kernel named 'k'") !=
        std::string::npos);
}

TEST_CASE("metadata: parameters", "[metadata]") {
  auto paramError = [](const std::string &params) {
    std::string message = errorOf(withKernel(kernelWithParams(params)));
    // Drop "m.json:line:col: " so the checks below read as the rules they test.
    return message.substr(message.find(": ") + 2);
  };
  CHECK(paramError(R"(1)") == "kernels[0].params[0] must be an object, not a number");
  CHECK(paramError(R"({"type": "i32"})") == "kernels[0].params[0] has no member \"name\"");
  CHECK(paramError(R"({"name": "n"})") == "kernels[0].params[0] has no member \"type\"");
  CHECK(paramError(R"({"name": "n", "type": "f32"})") ==
        "kernels[0].params[0].type is \"f32\", not a type of the Triton signature (i1 i8 i16 i32 "
        "i64 u8 u16 u32 u64 fp16 bf16 fp32 fp64 fp8e4nv fp8e5 fp8e4b15, or * and one of them)");
  CHECK(paramError(R"({"name": "p", "type": "*fp16", "alignment": 12})") ==
        "kernels[0].params[0].alignment is 12, not a power of two");
  CHECK(paramError(R"({"name": "p", "type": "*fp16", "alignment": -16})") ==
        "kernels[0].params[0].alignment is -16, outside [0, 1048576]");
  CHECK(paramError(R"({"name": "n", "type": "i32", "alignment": 16})") ==
        "kernels[0].params[0].alignment is for pointer parameters, and this one is i32");
  CHECK(paramError(R"({"name": "p", "type": "*i32", "divisibility": 16})") ==
        "kernels[0].params[0].divisibility is for integer parameters, and this one is *i32");
  CHECK(paramError(R"({"name": "x", "type": "fp32", "divisibility": 16})") ==
        "kernels[0].params[0].divisibility is for integer parameters, and this one is fp32");
  CHECK(paramError(R"({"name": "n", "type": "i32"}, {"name": "n", "type": "i64"})") ==
        "kernels[0].params[1] a second parameter named 'n'");

  // Zero is "no promise" for either kind; absent members default to it.
  Metadata metadata = Metadata::parse(withKernel(kernelWithParams(
      R"({"name": "p", "type": "*i8", "alignment": 0, "divisibility": 0},
         {"name": "n", "type": "u64", "alignment": 0, "divisibility": 8}, {"name": "b", "type": "i1"})")));
  const KernelInfo &kernel = metadata.Kernels[0];
  REQUIRE(kernel.Params.size() == 3);
  CHECK(kernel.Params[0].Alignment == 0);
  CHECK(kernel.Params[1].Divisibility == 8);
  CHECK(kernel.Params[2].Type == ParamType{DType::I1, false});
}

TEST_CASE("metadata: constexprs", "[metadata]") {
  std::string kernel = R"({"name": "k", "entry": "e", "num_warps": 1, "threads_per_block": 32,
                          "shared_memory_bytes": 0, "params": [], "constexprs": )";
  auto constexprError = [&](const std::string &constexprs) {
    std::string message = errorOf(withKernel(kernel + constexprs + "}"));
    return message.substr(message.find(": ") + 2);
  };
  CHECK(constexprError("{}") == "kernels[0].constexprs must be an array, not an object");
  CHECK(constexprError(R"([{"name": "B"}])") == "kernels[0].constexprs[0] has no member \"value\"");
  CHECK(constexprError(R"([{"name": "B", "value": 1024}])") ==
        "kernels[0].constexprs[0].value must be a string, not a number");
  Metadata metadata = Metadata::parse(
      withKernel(kernel + R"([{"name": "B", "value": "1024"}, {"name": "F", "value": "True"}]})"));
  REQUIRE(metadata.Kernels[0].Constexprs.size() == 2);
  CHECK(metadata.Kernels[0].Constexprs[1].Value == "True");
}

TEST_CASE("metadata: files", "[metadata]") {
  CHECK_THROWS_WITH(Metadata::loadFile("/nonexistent/dir/k.json"),
                    "cannot open metadata file '/nonexistent/dir/k.json': No such file or "
                    "directory");
}

TEST_CASE("version 4 metadata gives a kernel's global scratch, per program") {
  auto document = [](int version, const std::string &scratch, const std::string &variants = "") {
    return R"({"schema": "tilec-metadata", "version": )" + std::to_string(version) +
           R"(, "target": "sm_90a", "kernels": [{"name": "k", "entry": "k0", "num_warps": 4,
             "threads_per_block": 128, "shared_memory_bytes": 0,
             "params": [{"name": "x", "type": "*fp16", "alignment": 16}])" +
           scratch + variants + "}]}";
  };
  const std::string scratch = R"(, "global_scratch": {"size": 256, "align": 128})";
  Metadata metadata = Metadata::parse(document(4, scratch), "m.json");
  CHECK(metadata.Kernels[0].GlobalScratchBytes == 256);
  CHECK(Metadata::parse(document(4, ""), "m.json").Kernels[0].GlobalScratchBytes == 0);

  // A reader of versions 1 to 3 would launch without the pointer the .entry takes last.
  CHECK_THAT(errorOf(document(3, scratch)),
             Catch::Contains("global_scratch is a version 4 member (the .entry takes a global "
                             "scratch pointer), and the file says version 3"));
  CHECK_THAT(errorOf(document(4, R"(, "global_scratch": {"size": 100, "align": 128})")),
             Catch::Contains("global_scratch.size is not a multiple of align"));
  CHECK_THAT(errorOf(document(4, R"(, "global_scratch": {"size": 256, "align": 256})")),
             Catch::Contains("must be a power of two up to 128"));

  // A variant has the kernel's scratch unless it gives its own (0: a config that made no map).
  const std::string variants = R"(, "autotune_key": [], "variants": [
      {"entry": "k0", "num_warps": 4, "num_stages": 3, "threads_per_block": 128,
       "shared_memory_bytes": 0, "constexprs": []},
      {"entry": "k1", "num_warps": 4, "num_stages": 1, "threads_per_block": 128,
       "shared_memory_bytes": 0, "constexprs": [], "global_scratch": {"size": 0, "align": 128}}])";
  Metadata tuned = Metadata::parse(document(4, scratch, variants), "m.json");
  REQUIRE(tuned.Kernels[0].Variants.size() == 2);
  CHECK(tuned.Kernels[0].Variants[0].GlobalScratchBytes == 256);
  CHECK(tuned.Kernels[0].Variants[1].GlobalScratchBytes == 0);
}
