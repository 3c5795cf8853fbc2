//===- Driver.cpp - The CUDA driver, opened at run time -------------------===//

#include "Driver.h"

#include "tilec/runtime.hpp"

#include <cstdlib>
#include <dlfcn.h>

namespace tilec::rt::driver {

namespace {

// Two steps so that the argument is macro-expanded first: cuMemAlloc -> "cuMemAlloc_v2".
#define TILEC_STRINGIFY_EXPANDED(name) TILEC_STRINGIFY(name)
#define TILEC_STRINGIFY(name) #name

struct LoadedDriver {
  Api Functions;
  std::string Failure; // empty when loaded

  LoadedDriver() {
    const char *override = std::getenv("TILEC_CUDA_DRIVER");
    std::string library = override && *override ? override : "libcuda.so.1";
    // Never closed: the driver must outlive every module and context of the process.
    void *handle = dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
      const char *reason = dlerror(); // names the library
      Failure = std::string("cannot open the CUDA driver library: ") +
                (reason ? reason : library + ": unknown reason");
      return;
    }
    std::string missing;
#define TILEC_DRIVER_FUNCTION(name)                                                                \
  Functions.name =                                                                                 \
      reinterpret_cast<decltype(Functions.name)>(dlsym(handle, TILEC_STRINGIFY_EXPANDED(name)));   \
  if (!Functions.name)                                                                             \
    missing += std::string(missing.empty() ? "" : ", ") + TILEC_STRINGIFY_EXPANDED(name);
#define TILEC_OPTIONAL_DRIVER_FUNCTION(name)                                                       \
  Functions.name =                                                                                 \
      reinterpret_cast<decltype(Functions.name)>(dlsym(handle, TILEC_STRINGIFY_EXPANDED(name)));
#include "DriverFunctions.def"
    if (!missing.empty())
      Failure = "the CUDA driver library " + library + " lacks " + missing +
                " (the driver is older than this runtime needs)";
  }
};

const LoadedDriver &loadedDriver() {
  static const LoadedDriver Driver;
  return Driver;
}

} // namespace

const Api *tryApi(std::string *whyNot) {
  const LoadedDriver &driver = loadedDriver();
  if (!driver.Failure.empty()) {
    if (whyNot)
      *whyNot = driver.Failure;
    return nullptr;
  }
  return &driver.Functions;
}

const Api &api() {
  std::string whyNot;
  if (const Api *functions = tryApi(&whyNot))
    return *functions;
  throw Error(whyNot);
}

namespace {
/// " (description)" or "" when the driver has none.
std::string describeString(const Api *functions, CUresult result) {
  const char *description = nullptr;
  if (functions && functions->cuGetErrorString(result, &description) == CUDA_SUCCESS && description)
    return std::string(" (") + description + ")";
  return "";
}
} // namespace

std::string describe(CUresult result) {
  const Api *functions = tryApi(nullptr);
  const char *name = nullptr;
  // Naming can fail (the stub library, an unknown code): then fall back to the number.
  if (functions && functions->cuGetErrorName(result, &name) == CUDA_SUCCESS && name)
    return name + describeString(functions, result);
  // The stub cannot name its own error, and it is worth naming: a program that finds the
  // toolkit's stub libcuda (through LD_LIBRARY_PATH, say) instead of the driver gets it.
  if (result == CUDA_ERROR_STUB_LIBRARY)
    return "CUDA_ERROR_STUB_LIBRARY (the CUDA driver library loaded is the toolkit's stub, not "
           "a driver)";
  return "CUDA error " + std::to_string(static_cast<int>(result)) +
         describeString(functions, result);
}

void fail(CUresult result, const char *call, const std::string &detail) {
  std::string message = std::string(call) + " failed: " + describe(result);
  if (!detail.empty())
    message += "\n" + detail;
  throw Error(message, result);
}

} // namespace tilec::rt::driver
