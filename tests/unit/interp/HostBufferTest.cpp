// HostBuffer: element access, the command-line buffer specs and raw files.
#include "interp/HostBuffer.h"

#include "interp/Interpreter.h"

#include <catch2/catch.hpp>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <set>
#include <unistd.h>

using namespace tilec;
using namespace tilec::interp;
using tir::DType;
using tir::ScalarKind;

namespace {

const DType f32 = DType::scalar(ScalarKind::F32);
const DType f16 = DType::scalar(ScalarKind::F16);
const DType i32 = DType::scalar(ScalarKind::I32);

std::string temporaryPath(const std::string &name) {
  return "/tmp/tilec_interp_test_" + std::to_string(getpid()) + "_" + name;
}

} // namespace

TEST_CASE("buffer elements are stored as device memory holds them", "[interp][buffer]") {
  HostBuffer halves(f16, 3);
  halves.setDouble(0, 1.0);
  halves.setDouble(1, 1.0 + 1.0 / 2048); // a tie: rounds to even, 1.0
  halves.setDouble(2, -2.0);
  uint16_t bits[3];
  std::memcpy(bits, halves.data(), sizeof(bits));
  CHECK(bits[0] == 0x3c00);
  CHECK(bits[1] == 0x3c00);
  CHECK(bits[2] == 0xc000);
  CHECK(halves.getDouble(2) == -2.0);
  CHECK(halves.sizeInBytes() == 6);

  HostBuffer bytes(DType::scalar(ScalarKind::U8), 2);
  bytes.setInt(0, 300);     // wraps
  bytes.setDouble(1, -5.0); // saturates at 0 like a cast
  CHECK(bytes.getInt(0) == 44);
  CHECK(bytes.getInt(1) == 0);

  HostBuffer ints(i32, 2);
  ints.setDouble(0, -2.9);
  CHECK(ints.getInt(0) == -2);
  CHECK_THROWS_AS(HostBuffer(DType::pointer(ScalarKind::F32), 4), InterpError);
}

TEST_CASE("zeros, ones and range specs", "[interp][buffer]") {
  HostBuffer zeros = parseBufferSpec("zeros:5", f32);
  HostBuffer ones = parseBufferSpec("ones:5", f16);
  HostBuffer range = parseBufferSpec("range:300", DType::scalar(ScalarKind::I8));
  REQUIRE(zeros.size() == 5);
  REQUIRE(ones.size() == 5);
  REQUIRE(range.size() == 300);
  for (size_t i = 0; i < 5; ++i) {
    CHECK(zeros.getDouble(i) == 0.0);
    CHECK(ones.getDouble(i) == 1.0);
  }
  std::vector<int8_t> values(300);
  std::memcpy(values.data(), range.data(), 300);
  for (size_t i = 0; i < 300; ++i)
    REQUIRE(values[i] == static_cast<int8_t>(i)); // int8 wraps past 127
}

TEST_CASE("rand specs are deterministic and in range", "[interp][buffer]") {
  HostBuffer a = parseBufferSpec("rand:1000", f32);
  HostBuffer b = parseBufferSpec("rand:1000:0", f32);
  HostBuffer c = parseBufferSpec("rand:1000:7", f32);
  CHECK(std::memcmp(a.data(), b.data(), a.sizeInBytes()) == 0); // seed 0 is the default
  CHECK(std::memcmp(a.data(), c.data(), a.sizeInBytes()) != 0);
  std::set<double> distinct;
  bool sawNegative = false, sawPositive = false;
  for (size_t i = 0; i < a.size(); ++i) {
    double v = a.getDouble(i);
    REQUIRE(v >= -1.0);
    REQUIRE(v < 1.0);
    sawNegative |= v < -0.5;
    sawPositive |= v > 0.5;
    distinct.insert(v);
  }
  CHECK(sawNegative);
  CHECK(sawPositive);
  CHECK(distinct.size() > 990);

  HostBuffer halves = parseBufferSpec("rand:4096:3", f16);
  for (size_t i = 0; i < halves.size(); ++i) {
    REQUIRE(halves.getDouble(i) >= -1.0);
    REQUIRE(halves.getDouble(i) < 1.0); // never rounds up to 1
  }

  HostBuffer ints = parseBufferSpec("rand:1000:5", i32);
  int64_t lowest = 0, highest = 0;
  for (size_t i = 0; i < ints.size(); ++i) {
    lowest = std::min(lowest, ints.getInt(i));
    highest = std::max(highest, ints.getInt(i));
  }
  CHECK(lowest >= -100);
  CHECK(lowest < -90);
  CHECK(highest <= 99);
  CHECK(highest > 90);
  HostBuffer unsignedInts = parseBufferSpec("rand:100", DType::scalar(ScalarKind::U32));
  for (size_t i = 0; i < unsignedInts.size(); ++i)
    REQUIRE(unsignedInts.getInt(i) < 100);
}

TEST_CASE("files round-trip through writeToFile and file:", "[interp][buffer]") {
  std::string path = temporaryPath("roundtrip.bin");
  HostBuffer original = parseBufferSpec("rand:77:9", f16);
  original.writeToFile(path);
  HostBuffer loaded = parseBufferSpec("file:" + path, f16);
  REQUIRE(loaded.size() == 77);
  CHECK(std::memcmp(loaded.data(), original.data(), original.sizeInBytes()) == 0);
  // 154 bytes are not a whole number of f32 elements.
  CHECK_THROWS_WITH(parseBufferSpec("file:" + path, f32),
                    Catch::Contains("has 154 bytes, not a whole number of f32 elements"));
  std::remove(path.c_str());
}

TEST_CASE("malformed buffer specs are rejected with the spec quoted", "[interp][buffer]") {
  using Catch::Contains;
  CHECK_THROWS_WITH(parseBufferSpec("zeros", f32), Contains("invalid buffer spec 'zeros'"));
  CHECK_THROWS_WITH(parseBufferSpec("sevens:4", f32), Contains("unknown kind 'sevens'"));
  CHECK_THROWS_WITH(parseBufferSpec("ones:abc", f32), Contains("positive integer"));
  CHECK_THROWS_WITH(parseBufferSpec("ones:0", f32), Contains("positive integer"));
  CHECK_THROWS_WITH(parseBufferSpec("ones:-3", f32), Contains("positive integer"));
  CHECK_THROWS_WITH(parseBufferSpec("range:4:2", f32), Contains("only rand takes a seed"));
  CHECK_THROWS_WITH(parseBufferSpec("rand:4:x", f32), Contains("seed"));
  CHECK_THROWS_WITH(parseBufferSpec("file:", f32), Contains("missing file path"));
  CHECK_THROWS_WITH(parseBufferSpec("file:/nonexistent/dir/x.bin", f32),
                    Contains("cannot open '/nonexistent/dir/x.bin'"));
  CHECK_THROWS_AS(HostBuffer(f32, 4).writeToFile("/nonexistent/dir/out.bin"), InterpError);
}
