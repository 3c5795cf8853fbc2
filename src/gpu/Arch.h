// The target's SM version, from the arch name every stage is given ("sm_90a" -> 90).
#pragma once

#include <cstdlib>
#include <string>

namespace tilec::gpu {

/// The SM version number of `arch` ("sm_80" -> 80, "sm_90a" -> 90); 0 when it is not "sm_<N>...".
inline unsigned smVersion(const std::string &arch) {
  if (arch.rfind("sm_", 0) != 0)
    return 0;
  return static_cast<unsigned>(std::strtoul(arch.c_str() + 3, nullptr, 10));
}

} // namespace tilec::gpu
