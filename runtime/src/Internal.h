//===- Internal.h - Helpers shared by the runtime's sources -----*- C++ -*-===//

#ifndef TILEC_RUNTIME_INTERNAL_H
#define TILEC_RUNTIME_INTERNAL_H

#include <string>

namespace tilec::rt {

/// The whole file; throws Error naming \p what ("PTX file") and the path when it cannot be read.
std::string readTextFile(const std::string &path, const char *what);

} // namespace tilec::rt

#endif // TILEC_RUNTIME_INTERNAL_H
