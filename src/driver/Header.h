// `tilec --emit header`: a C++ header with the PTX and its metadata embedded and one typed
// launcher per kernel, so that a host program needs no file at run time and a wrong argument type
// is a compile error in the user's program instead of a launch error.
#pragma once

#include <string>

namespace tilec::driver {

/// The header for the PTX and metadata JSON that one compilation produced. `sourceName` (the .tl
/// file) names the embedded module in messages and in the header's comments. Deterministic: the
/// same inputs give the same bytes. Throws CompileError if the metadata is not what the compiler
/// writes (an internal error).
/// With `fatbin`, `ptx` is a fatbin (--embed fatbin) and is embedded as such.
std::string emitHeader(const std::string &ptx, const std::string &metadataJson,
                       const std::string &sourceName, bool fatbin = false);

} // namespace tilec::driver
