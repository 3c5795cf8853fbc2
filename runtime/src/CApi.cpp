//===- CApi.cpp - The C API over tilec::rt --------------------------------===//

#include "tilec/runtime.h"
#include "tilec/runtime.hpp"

#include "Driver.h"

#include <cstring>
#include <algorithm>
#include <new>
#include <string>

struct tilec_module {
  tilec::rt::Module Module;
};

struct tilec_kernel {
  tilec::rt::Kernel Kernel;
};

struct tilec_context {
  tilec::rt::PrimaryContext Context;
};

namespace {

struct LastError {
  std::string Message;
  CUresult Result = CUDA_SUCCESS;
};
thread_local LastError TheLastError;

/// Runs \p body, turning every exception into TILEC_ERROR and the thread's last error: no C++
/// exception may cross into C.
template <typename Body> tilec_status guarded(Body &&body) {
  try {
    body();
    TheLastError = LastError();
    return TILEC_SUCCESS;
  } catch (const tilec::rt::Error &error) {
    TheLastError = LastError{error.what(), error.cudaResult()};
  } catch (const std::bad_alloc &) {
    TheLastError = LastError{"out of host memory", CUDA_SUCCESS};
  } catch (const std::exception &error) {
    TheLastError = LastError{error.what(), CUDA_SUCCESS};
  }
  return TILEC_ERROR;
}

tilec_status nullArgument(const char *function, const char *argument) {
  TheLastError = LastError{std::string(function) + ": " + argument + " is NULL", CUDA_SUCCESS};
  return TILEC_ERROR;
}

tilec::rt::Arg toArg(const tilec_arg &arg, size_t index) {
  using tilec::rt::Arg;
  switch (arg.kind) {
  case TILEC_ARG_POINTER:
    return Arg(arg.value.pointer);
  case TILEC_ARG_I32:
    return Arg(static_cast<int32_t>(arg.value.i64));
  case TILEC_ARG_I64:
    return Arg(static_cast<int64_t>(arg.value.i64));
  case TILEC_ARG_U32:
    return Arg(static_cast<uint32_t>(arg.value.u64));
  case TILEC_ARG_U64:
    return Arg(static_cast<uint64_t>(arg.value.u64));
  case TILEC_ARG_F32:
    return Arg(arg.value.f32);
  case TILEC_ARG_F64:
    return Arg(arg.value.f64);
  case TILEC_ARG_BOOL:
    return Arg(arg.value.i64 != 0);
  }
  throw tilec::rt::Error("argument " + std::to_string(index) + " has an unknown kind " +
                         std::to_string(static_cast<int>(arg.kind)));
}

} // namespace

extern "C" {

const char *tilec_last_error(void) {
  return TheLastError.Message.c_str();
}

CUresult tilec_last_cuda_result(void) {
  return TheLastError.Result;
}

tilec_status tilec_device_count(int *count) {
  if (!count)
    return nullArgument("tilec_device_count", "count");
  return guarded([&] { *count = tilec::rt::deviceCount(); });
}

tilec_status tilec_context_create(int device_ordinal, tilec_context **context) {
  if (!context)
    return nullArgument("tilec_context_create", "context");
  *context = nullptr;
  return guarded([&] { *context = new tilec_context{tilec::rt::PrimaryContext(device_ordinal)}; });
}

void tilec_context_destroy(tilec_context *context) {
  delete context;
}

tilec_status tilec_context_make_current(const tilec_context *context) {
  if (!context)
    return nullArgument("tilec_context_make_current", "context");
  return guarded([&] {
    tilec::rt::driver::check(
        tilec::rt::driver::api().cuCtxSetCurrent(context->Context.handle()), "cuCtxSetCurrent");
  });
}

CUcontext tilec_context_handle(const tilec_context *context) {
  return context ? context->Context.handle() : nullptr;
}

tilec_status tilec_context_device_name(const tilec_context *context, char *name, size_t size) {
  if (!context || !name)
    return nullArgument("tilec_context_device_name", !context ? "context" : "name");
  if (size == 0) {
    TheLastError = LastError{"tilec_context_device_name: size is 0", CUDA_SUCCESS};
    return TILEC_ERROR;
  }
  return guarded([&] {
    std::string description = context->Context.deviceDescription();
    size_t length = std::min(description.size(), size - 1);
    std::memcpy(name, description.data(), length);
    name[length] = '\0';
  });
}

tilec_status tilec_mem_alloc(CUdeviceptr *pointer, size_t bytes) {
  if (!pointer)
    return nullArgument("tilec_mem_alloc", "pointer");
  *pointer = 0;
  if (bytes == 0)
    return guarded([] {});
  return guarded([&] {
    tilec::rt::driver::check(tilec::rt::driver::api().cuMemAlloc(pointer, bytes), "cuMemAlloc",
                             std::to_string(bytes) + " bytes");
  });
}

tilec_status tilec_mem_free(CUdeviceptr pointer) {
  if (!pointer)
    return guarded([] {});
  return guarded([&] {
    tilec::rt::driver::check(tilec::rt::driver::api().cuMemFree(pointer), "cuMemFree");
  });
}

tilec_status tilec_memcpy_htod(CUdeviceptr destination, const void *source, size_t bytes) {
  if (bytes == 0)
    return guarded([] {});
  if (!destination || !source)
    return nullArgument("tilec_memcpy_htod", !destination ? "destination" : "source");
  return guarded([&] {
    tilec::rt::driver::check(tilec::rt::driver::api().cuMemcpyHtoD(destination, source, bytes),
                             "cuMemcpyHtoD", std::to_string(bytes) + " bytes");
  });
}

tilec_status tilec_memcpy_dtoh(void *destination, CUdeviceptr source, size_t bytes) {
  if (bytes == 0)
    return guarded([] {});
  if (!destination || !source)
    return nullArgument("tilec_memcpy_dtoh", !destination ? "destination" : "source");
  return guarded([&] {
    tilec::rt::driver::check(tilec::rt::driver::api().cuMemcpyDtoH(destination, source, bytes),
                             "cuMemcpyDtoH", std::to_string(bytes) + " bytes");
  });
}

tilec_status tilec_synchronize(void) {
  return guarded([] { tilec::rt::synchronize(); });
}

tilec_status tilec_module_load_file(const char *ptx_path, const char *metadata_path,
                                    tilec_module **module) {
  if (!ptx_path || !metadata_path || !module)
    return nullArgument("tilec_module_load_file", !ptx_path        ? "ptx_path"
                                                  : !metadata_path ? "metadata_path"
                                                                   : "module");
  *module = nullptr;
  return guarded(
      [&] { *module = new tilec_module{tilec::rt::Module::loadFile(ptx_path, metadata_path)}; });
}

tilec_status tilec_module_load_data(const char *ptx, const char *metadata_json,
                                    tilec_module **module) {
  if (!ptx || !metadata_json || !module)
    return nullArgument("tilec_module_load_data", !ptx             ? "ptx"
                                                  : !metadata_json ? "metadata_json"
                                                                   : "module");
  *module = nullptr;
  return guarded(
      [&] { *module = new tilec_module{tilec::rt::Module::loadFromMemory(ptx, metadata_json)}; });
}

void tilec_module_destroy(tilec_module *module) {
  delete module;
}

tilec_status tilec_module_get_kernel(const tilec_module *module, const char *name,
                                     tilec_kernel **kernel) {
  if (!module || !name || !kernel)
    return nullArgument("tilec_module_get_kernel", !module ? "module" : !name ? "name" : "kernel");
  *kernel = nullptr;
  return guarded([&] { *kernel = new tilec_kernel{module->Module.kernel(name)}; });
}

void tilec_kernel_destroy(tilec_kernel *kernel) {
  delete kernel;
}

unsigned tilec_kernel_block_size(const tilec_kernel *kernel) {
  return kernel ? kernel->Kernel.blockSize() : 0;
}

tilec_status tilec_kernel_constexpr_int(const tilec_kernel *kernel, const char *name,
                                        int64_t *value) {
  if (!kernel || !name || !value)
    return nullArgument("tilec_kernel_constexpr_int", !kernel ? "kernel" : !name ? "name" : "value");
  return guarded([&] { *value = kernel->Kernel.info().intConstexpr(name); });
}

tilec_status tilec_kernel_launch(const tilec_kernel *kernel, unsigned grid_x, unsigned grid_y,
                                 unsigned grid_z, CUstream stream, const tilec_arg *args,
                                 size_t arg_count) {
  if (!kernel)
    return nullArgument("tilec_kernel_launch", "kernel");
  if (!args && arg_count)
    return nullArgument("tilec_kernel_launch", "args");
  return guarded([&] {
    std::vector<tilec::rt::Arg> converted;
    converted.reserve(arg_count);
    for (size_t i = 0; i < arg_count; ++i)
      converted.push_back(toArg(args[i], i));
    kernel->Kernel.launchArgs(tilec::rt::Grid{grid_x, grid_y, grid_z}, stream, converted);
  });
}

} // extern "C"
