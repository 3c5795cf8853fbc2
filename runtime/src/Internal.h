//===- Internal.h - Helpers shared by the runtime's sources -----*- C++ -*-===//

#ifndef TILEC_RUNTIME_INTERNAL_H
#define TILEC_RUNTIME_INTERNAL_H

#include <cstdint>
#include <string>

namespace tilec::rt {

/// The whole file; throws Error naming \p what ("PTX file") and the path when it cannot be read.
std::string readTextFile(const std::string &path, const char *what);

/// How many primary-context resets (PrimaryContext::reset) this process has made. Modules, kernels
/// and device buffers remember the count they were made at: a reset destroyed what they refer
/// to, and the driver may hand their handles and addresses out again to what is made after it,
/// so they must neither use nor free them. (One count for all devices: a reset is rare, and what
/// another device's objects then leave loaded is released at exit.)
uint64_t contextResets();

namespace detail {
struct KernelState;
/// Whether a context reset has unloaded the kernel's module since it was loaded.
bool unloadedByReset(const KernelState &kernel);
} // namespace detail

} // namespace tilec::rt

#endif // TILEC_RUNTIME_INTERNAL_H
