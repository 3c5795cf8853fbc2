//===- GpuChecks.h - the checks of the runtime's GPU test programs --------===//
//
// The GPU test programs (runtime_gpu_test.cpp, runtime_tma_test.cpp, runtime_trap_test.cpp) count
// their failed checks in Failures and run them in named sections, so that one failure is reported
// with its file and line and the others still run.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <cstdio>
#include <cstring>
#include <exception>
#include <functional>
#include <string>

namespace gpu_checks {

inline int Failures = 0;
inline int Checks = 0;

/// Counts a check; prints `what` with the caller's file and line where `condition` is false.
inline void expect(bool condition, const std::string &what, int line,
                   const char *file = __builtin_FILE()) {
  ++Checks;
  if (condition)
    return;
  const char *slash = std::strrchr(file, '/');
  std::printf("  %s:%d: FAILED: %s\n", slash ? slash + 1 : file, line, what.c_str());
  ++Failures;
}

/// Runs one group of checks; an unexpected exception fails it without stopping the others.
inline void section(const char *name, const std::function<void()> &body) {
  std::printf("[%s]\n", name);
  int before = Failures;
  try {
    body();
  } catch (const std::exception &error) {
    std::printf("  FAILED: unexpected exception: %s\n", error.what());
    ++Failures;
  }
  std::printf("  %s\n", Failures == before ? "ok" : "FAILED");
}

} // namespace gpu_checks

#define EXPECT(condition) ::gpu_checks::expect((condition), #condition, __LINE__)
