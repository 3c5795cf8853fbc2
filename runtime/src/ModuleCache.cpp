//===- ModuleCache.cpp - Modules loaded once per context ------------------===//
//
// One mutex around a map: loading happens under the lock, so two threads that launch the same
// kernel first in the same context load it once, and the other waits. Loads are rare (once per
// module and context); lookups take the lock briefly.
//
//===----------------------------------------------------------------------===//

#include "tilec/runtime.hpp"

#include "Driver.h"

#include <map>
#include <mutex>
#include <tuple>

namespace tilec::rt {

namespace {

/// The current context; a clear Error when there is none (the loader would say the same, later).
CUcontext currentContext() {
  CUcontext context = nullptr;
  CUresult result = driver::api().cuCtxGetCurrent(&context);
  if (result == CUDA_ERROR_NOT_INITIALIZED || (result == CUDA_SUCCESS && !context))
    throw Error("no current CUDA context to load a module in: make one current first "
                "(tilec::rt::PrimaryContext, cuCtxSetCurrent, or any CUDA runtime API call)",
                result);
  driver::check(result, "cuCtxGetCurrent");
  return context;
}

} // namespace

struct ModuleCache::Impl {
  // (context, PTX address, PTX size, metadata address, metadata size), or for files the paths.
  using MemoryKey = std::tuple<CUcontext, const char *, size_t, const char *, size_t>;
  using FileKey = std::tuple<CUcontext, std::string, std::string>;

  mutable std::mutex Mutex;
  std::map<MemoryKey, Module> FromMemory;
  std::map<FileKey, Module> FromFiles;
};

ModuleCache::ModuleCache() : State(std::make_unique<Impl>()) {}
ModuleCache::~ModuleCache() = default;

ModuleCache &ModuleCache::global() {
  // Never destroyed: unloading modules while the program exits could run after the driver or the
  // context is gone. The driver releases everything at exit.
  static ModuleCache *cache = new ModuleCache();
  return *cache;
}

Module ModuleCache::get(std::string_view ptx, std::string_view metadataJson,
                        std::string_view origin) {
  Impl::MemoryKey key{currentContext(), ptx.data(), ptx.size(), metadataJson.data(),
                      metadataJson.size()};
  std::lock_guard<std::mutex> lock(State->Mutex);
  auto found = State->FromMemory.find(key);
  if (found != State->FromMemory.end())
    return found->second;
  Module module = Module::loadFromMemory(ptx, metadataJson, origin, std::string(origin) + " metadata");
  State->FromMemory.emplace(key, module);
  return module;
}

Module ModuleCache::getFile(const std::string &ptxPath, const std::string &metadataPath) {
  Impl::FileKey key{currentContext(), ptxPath, metadataPath};
  std::lock_guard<std::mutex> lock(State->Mutex);
  auto found = State->FromFiles.find(key);
  if (found != State->FromFiles.end())
    return found->second;
  Module module = Module::loadFile(ptxPath, metadataPath);
  State->FromFiles.emplace(key, module);
  return module;
}

void ModuleCache::clear() {
  std::lock_guard<std::mutex> lock(State->Mutex);
  State->FromMemory.clear();
  State->FromFiles.clear();
}

size_t ModuleCache::size() const {
  std::lock_guard<std::mutex> lock(State->Mutex);
  return State->FromMemory.size() + State->FromFiles.size();
}

Kernel CachedKernel::get() const {
  CUcontext context = currentContext();
  {
    std::lock_guard<std::mutex> lock(Mutex);
    for (auto &[cachedContext, state] : ByContext)
      if (cachedContext == context)
        if (auto alive = state.lock())
          return Kernel(std::move(alive));
  }
  // First use in this context, or the module was dropped (ModuleCache::clear()): load it outside
  // our lock (the ModuleCache serializes loads), then remember the kernel.
  Kernel kernel = ModuleCache::global().get(Ptx, MetadataJson, Origin).kernel(Name);
  std::lock_guard<std::mutex> lock(Mutex);
  for (auto &[cachedContext, state] : ByContext) {
    if (cachedContext == context) {
      state = kernel.State;
      return kernel;
    }
  }
  ByContext.emplace_back(context, kernel.State);
  return kernel;
}

size_t CachedKernel::contexts() const {
  std::lock_guard<std::mutex> lock(Mutex);
  return ByContext.size();
}

} // namespace tilec::rt
