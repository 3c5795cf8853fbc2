#include "interp/HostBuffer.h"

#include "interp/Interpreter.h"
#include "interp/Numerics.h"

#include <cerrno>
#include <cstring>
#include <fstream>

namespace tilec::interp {

using tir::ScalarKind;

namespace {

/// SplitMix64: tiny, fast, and fully specified, so `rand:N:SEED` gives the same buffer on every
/// platform (std::uniform_*_distribution does not promise that).
class SplitMix64 {
public:
  explicit SplitMix64(uint64_t seed) : state_(seed) {}
  uint64_t next() {
    uint64_t z = (state_ += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }

private:
  uint64_t state_;
};

/// Stored mantissa bits of a float dtype: random values are drawn on a grid this fine, so that
/// every value is exact in the type and none rounds up to 1.
int mantissaBits(ScalarKind kind) {
  switch (kind) {
  case ScalarKind::F8E4M3:
    return 3;
  case ScalarKind::F8E5M2:
    return 2;
  case ScalarKind::F16:
    return 10;
  case ScalarKind::BF16:
    return 7;
  case ScalarKind::F32:
    return 23;
  default:
    return 52;
  }
}

bool parseCount(const std::string &text, uint64_t &out) {
  if (text.empty() || text.size() > 18)
    return false;
  out = 0;
  for (char c : text) {
    if (c < '0' || c > '9')
      return false;
    out = out * 10 + static_cast<uint64_t>(c - '0');
  }
  return true;
}

} // namespace

HostBuffer::HostBuffer(tir::DType elementType, size_t count)
    : elementType_(elementType), count_(count) {
  if (elementType.isPointer())
    throw InterpError("a buffer cannot hold pointers (" + elementType.str() + ")");
  storage_.assign((count * elementType.bytes() + 7) / 8, 0);
}

double HostBuffer::getDouble(size_t index) const {
  const unsigned char *element = data() + index * elementType_.bytes();
  uint64_t bits = 0;
  std::memcpy(&bits, element, elementType_.bytes());
  ScalarKind kind = elementType_.kind;
  if (kind == ScalarKind::F64) {
    double v;
    std::memcpy(&v, element, sizeof(v));
    return v;
  }
  if (elementType_.isFloat())
    return bitsToFloatLane(bits, kind);
  if (kind == ScalarKind::I1)
    return bits != 0;
  int64_t lane = wrapInteger(bits, kind);
  return elementType_.isUnsigned() ? static_cast<double>(static_cast<uint64_t>(lane))
                                   : static_cast<double>(lane);
}

int64_t HostBuffer::getInt(size_t index) const {
  if (elementType_.isFloat())
    return floatToInteger(getDouble(index), ScalarKind::I64);
  uint64_t bits = 0;
  std::memcpy(&bits, data() + index * elementType_.bytes(), elementType_.bytes());
  if (elementType_.isBool())
    return bits != 0;
  return wrapInteger(bits, elementType_.kind);
}

void HostBuffer::setDouble(size_t index, double value) {
  unsigned char *element = data() + index * elementType_.bytes();
  ScalarKind kind = elementType_.kind;
  uint64_t bits;
  if (kind == ScalarKind::F64) {
    std::memcpy(&bits, &value, sizeof(bits));
  } else if (elementType_.isFloat()) {
    bits = kind == ScalarKind::F32
               ? floatLaneToBits(static_cast<float>(value), kind)
               : floatLaneToBits(static_cast<float>(roundToFloatType(value, kind)), kind);
  } else {
    bits = static_cast<uint64_t>(floatToInteger(value, kind));
  }
  std::memcpy(element, &bits, elementType_.bytes());
}

void HostBuffer::setInt(size_t index, int64_t value) {
  if (elementType_.isFloat()) {
    setDouble(index, integerToFloat(value, /*isUnsigned=*/false, elementType_.kind));
    return;
  }
  int64_t lane = elementType_.isBool() ? value != 0 : wrapInteger(value, elementType_.kind);
  std::memcpy(data() + index * elementType_.bytes(), &lane, elementType_.bytes());
}

void HostBuffer::fill(double value) {
  if (count_ == 0)
    return;
  // Encode once, then copy the element's bytes.
  setDouble(0, value);
  unsigned bytes = elementType_.bytes();
  for (size_t i = 1; i < count_; ++i)
    std::memcpy(data() + i * bytes, data(), bytes);
}

void HostBuffer::fillRange() {
  for (size_t i = 0; i < count_; ++i)
    setInt(i, static_cast<int64_t>(i));
}

void HostBuffer::fillRandom(uint64_t seed) {
  SplitMix64 generator(seed);
  if (elementType_.isFloat()) {
    // -1 + k * 2^(1-m) for k uniform in [0, 2^m): uniform on [-1, 1), exact in the type.
    int bits = mantissaBits(elementType_.kind);
    for (size_t i = 0; i < count_; ++i) {
      uint64_t k = generator.next() >> (64 - bits);
      setDouble(i, -1.0 + std::ldexp(static_cast<double>(k), 1 - bits));
    }
    return;
  }
  for (size_t i = 0; i < count_; ++i) {
    uint64_t r = generator.next();
    int64_t value;
    if (elementType_.isBool())
      value = static_cast<int64_t>(r >> 63);
    else if (elementType_.isUnsigned())
      value = static_cast<int64_t>(r % 100);
    else
      value = static_cast<int64_t>(r % 200) - 100;
    setInt(i, value);
  }
}

HostBuffer HostBuffer::readFromFile(const std::string &path, tir::DType elementType) {
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in)
    throw InterpError("cannot open '" + path + "': " + std::strerror(errno));
  std::streamoff fileSize = in.tellg();
  unsigned bytes = elementType.bytes();
  if (fileSize < 0 || fileSize % bytes != 0)
    throw InterpError("'" + path + "' has " + std::to_string(fileSize) +
                      " bytes, not a whole number of " + elementType.str() + " elements (" +
                      std::to_string(bytes) + " bytes each)");
  HostBuffer buffer(elementType, static_cast<size_t>(fileSize / bytes));
  in.seekg(0);
  if (!in.read(reinterpret_cast<char *>(buffer.data()), fileSize))
    throw InterpError("cannot read '" + path + "'");
  return buffer;
}

void HostBuffer::writeToFile(const std::string &path) const {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out)
    throw InterpError("cannot open '" + path + "' for writing: " + std::strerror(errno));
  out.write(reinterpret_cast<const char *>(data()), static_cast<std::streamsize>(sizeInBytes()));
  out.close();
  if (!out)
    throw InterpError("cannot write '" + path + "'");
}

HostBuffer parseBufferSpec(const std::string &spec, tir::DType elementType) {
  auto fail = [&](const std::string &why) -> InterpError {
    return InterpError("invalid buffer spec '" + spec + "': " + why +
                       " (expected zeros:N, ones:N, range:N, rand:N[:SEED] or file:PATH)");
  };
  size_t colon = spec.find(':');
  if (colon == std::string::npos)
    throw fail("missing ':'");
  std::string form = spec.substr(0, colon);
  std::string rest = spec.substr(colon + 1);
  if (form == "file") {
    if (rest.empty())
      throw fail("missing file path");
    return HostBuffer::readFromFile(rest, elementType);
  }
  if (form != "zeros" && form != "ones" && form != "range" && form != "rand")
    throw fail("unknown kind '" + form + "'");

  std::string countText = rest;
  uint64_t seed = kDefaultRandomSeed;
  size_t seedColon = rest.find(':');
  if (seedColon != std::string::npos) {
    if (form != "rand")
      throw fail("only rand takes a seed");
    countText = rest.substr(0, seedColon);
    if (!parseCount(rest.substr(seedColon + 1), seed))
      throw fail("the seed must be a non-negative integer");
  }
  uint64_t count;
  if (!parseCount(countText, count) || count == 0)
    throw fail("the element count must be a positive integer");

  HostBuffer buffer(elementType, static_cast<size_t>(count));
  if (form == "ones")
    buffer.fill(1.0);
  else if (form == "range")
    buffer.fillRange();
  else if (form == "rand")
    buffer.fillRandom(seed);
  return buffer;
}

} // namespace tilec::interp
