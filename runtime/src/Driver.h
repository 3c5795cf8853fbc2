//===- Driver.h - The CUDA driver, opened at run time -----------*- C++ -*-===//
//
// The runtime opens libcuda.so.1 itself instead of linking it, as the CUDA runtime API does: a
// program that uses tilec then starts on a machine without a driver and can report that there is
// no GPU (tests exit 77, "skipped") instead of failing in the dynamic loader.
//
// The environment variable TILEC_CUDA_DRIVER names another library to open instead (the tests
// use it to open the toolkit's stub library, or a missing one).
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_RUNTIME_DRIVER_H
#define TILEC_RUNTIME_DRIVER_H

#include <cuda.h>
#include <string>

namespace tilec::rt::driver {

/// Pointers to the driver's entry points, named as in cuda.h.
struct Api {
#define TILEC_DRIVER_FUNCTION(name) decltype(&::name) name = nullptr;
#include "DriverFunctions.def"
};

/// The driver; throws Error when it cannot be opened or lacks a required entry point.
const Api &api();
/// The driver, or nullptr with the reason in \p whyNot.
const Api *tryApi(std::string *whyNot);

/// "CUDA_ERROR_INVALID_PTX (a PTX JIT compilation failed)".
std::string describe(CUresult result);

/// Throws Error("<call> failed: <describe(result)>[\n<detail>]").
[[noreturn]] void fail(CUresult result, const char *call, const std::string &detail = "");

/// fail() unless \p result is success.
inline void check(CUresult result, const char *call, const std::string &detail = "") {
  if (result != CUDA_SUCCESS)
    fail(result, call, detail);
}

} // namespace tilec::rt::driver

#endif // TILEC_RUNTIME_DRIVER_H
