// Typed host memory for the interpreter: the buffers a kernel's pointer arguments point into.
//
// A HostBuffer holds `size()` elements of one scalar dtype, stored exactly as device memory holds
// them (fp16 as its 16 bits, bool as one byte, little-endian), so a buffer can be written to a
// file and compared byte for byte with what the GPU produced.
#pragma once

#include "tir/Types.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace tilec::interp {

class HostBuffer {
public:
  /// `count` zero-initialised elements of `elementType`. Throws InterpError for a pointer type.
  HostBuffer(tir::DType elementType, size_t count);

  tir::DType elementType() const { return elementType_; }
  size_t size() const { return count_; }
  size_t sizeInBytes() const { return count_ * elementType_.bytes(); }
  unsigned char *data() { return reinterpret_cast<unsigned char *>(storage_.data()); }
  const unsigned char *data() const {
    return reinterpret_cast<const unsigned char *>(storage_.data());
  }

  /// Element `index` as a double (fp16/bf16/fp8 decoded; integers converted, uint64 exactly
  /// only up to 2^53).
  double getDouble(size_t index) const;
  /// Element `index` as an integer: integers exactly (uint64 as its bit pattern), floats truncated
  /// toward zero and saturated like a cast.
  int64_t getInt(size_t index) const;
  /// Stores `value` converted like the IR's `cast`: rounded to nearest even for float types,
  /// truncated and saturated for integer types, `!= 0` for bool.
  void setDouble(size_t index, double value);
  /// Stores `value` converted like the IR's `cast` from int64: wrapped for integer types, rounded
  /// to nearest even for float types.
  void setInt(size_t index, int64_t value);

  /// Every element set to `value` (converted as setDouble does).
  void fill(double value);
  /// Element i set to i (converted as setInt does, so narrow integer types wrap).
  void fillRange();
  /// Uniform values from a deterministic generator seeded with `seed`: [-1, 1) for float types,
  /// [-100, 100) for signed integers, [0, 100) for unsigned ones, 0 or 1 for bool. The same seed
  /// gives the same values on every platform.
  void fillRandom(uint64_t seed);

  /// Reads a raw little-endian file of elements of `elementType`. Throws InterpError when the file
  /// cannot be read or its size is not a multiple of the element size.
  static HostBuffer readFromFile(const std::string &path, tir::DType elementType);
  /// Writes the raw elements. Throws InterpError when the file cannot be written.
  void writeToFile(const std::string &path) const;

private:
  tir::DType elementType_;
  size_t count_;
  // uint64_t words keep the data 8-byte aligned (16 with the default allocator).
  std::vector<uint64_t> storage_;
};

/// The default seed of `rand:N`.
constexpr uint64_t kDefaultRandomSeed = 0;

/// Makes a buffer from a command-line spec:
///   zeros:N   ones:N   range:N (0, 1, 2, ...)   rand:N[:SEED] (see fillRandom)   file:PATH
/// Throws InterpError with a message that quotes the spec when it is malformed.
HostBuffer parseBufferSpec(const std::string &spec, tir::DType elementType);

} // namespace tilec::interp
