//===- Runtime.cpp - Modules, kernels, contexts and device memory ---------===//

#include "tilec/runtime.hpp"

#include "Driver.h"
#include "Internal.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <iterator>
#include <utility>

namespace tilec::rt {

namespace {

// Launches may ask for up to 48 KiB of dynamic shared memory without opting in.
constexpr unsigned DefaultDynamicSharedLimit = 48 * 1024;
constexpr size_t JitLogBytes = 64 * 1024;

std::string trimLog(const std::vector<char> &buffer) {
  std::string log(buffer.data(), strnlen(buffer.data(), buffer.size()));
  while (!log.empty() && (log.back() == '\n' || log.back() == ' ' || log.back() == '\0'))
    log.pop_back();
  return log;
}

std::string computeCapability(CUdevice device) {
  const driver::Api &cu = driver::api();
  int major = 0, minor = 0;
  driver::check(
      cu.cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, device),
      "cuDeviceGetAttribute(COMPUTE_CAPABILITY_MAJOR)");
  driver::check(
      cu.cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, device),
      "cuDeviceGetAttribute(COMPUTE_CAPABILITY_MINOR)");
  return "sm_" + std::to_string(major) + std::to_string(minor);
}

/// The device of the current context; throws a clear Error when there is no current context.
CUdevice currentDevice(const char *purpose) {
  const driver::Api &cu = driver::api();
  CUcontext context = nullptr;
  CUresult result = cu.cuCtxGetCurrent(&context);
  if (result == CUDA_ERROR_NOT_INITIALIZED || (result == CUDA_SUCCESS && !context))
    throw Error(std::string("no current CUDA context to ") + purpose +
                    ": make one current first (tilec::rt::PrimaryContext, cuCtxSetCurrent, or any "
                    "CUDA runtime API call)",
                result);
  driver::check(result, "cuCtxGetCurrent");
  CUdevice device = 0;
  driver::check(cu.cuCtxGetDevice(&device), "cuCtxGetDevice");
  return device;
}

} // namespace

//===----------------------------------------------------------------------===//
// Devices, contexts, memory
//===----------------------------------------------------------------------===//

int deviceCount(std::string *whyNone) {
  std::string reason;
  const driver::Api *cu = driver::tryApi(&reason);
  if (!cu) {
    if (whyNone)
      *whyNone = reason;
    return 0;
  }
  CUresult result = cu->cuInit(0);
  if (result == CUDA_ERROR_NO_DEVICE) {
    if (whyNone)
      *whyNone = "cuInit found no CUDA device";
    return 0;
  }
  driver::check(result, "cuInit");
  int count = 0;
  driver::check(cu->cuDeviceGetCount(&count), "cuDeviceGetCount");
  if (count == 0 && whyNone)
    *whyNone = "cuDeviceGetCount found no CUDA device";
  return count;
}

PrimaryContext::PrimaryContext(int deviceOrdinal) {
  const driver::Api &cu = driver::api();
  driver::check(cu.cuInit(0), "cuInit");
  driver::check(cu.cuDeviceGet(&Device, deviceOrdinal), "cuDeviceGet",
                "device ordinal " + std::to_string(deviceOrdinal));
  driver::check(cu.cuDevicePrimaryCtxRetain(&Context, Device), "cuDevicePrimaryCtxRetain");
  CUresult result = cu.cuCtxSetCurrent(Context);
  if (result != CUDA_SUCCESS) {
    cu.cuDevicePrimaryCtxRelease(Device);
    Context = nullptr;
    driver::fail(result, "cuCtxSetCurrent");
  }
}

PrimaryContext::~PrimaryContext() {
  if (Context)
    driver::api().cuDevicePrimaryCtxRelease(Device); // nothing to do about a failure here
}

PrimaryContext::PrimaryContext(PrimaryContext &&other) noexcept
    : Device(other.Device), Context(std::exchange(other.Context, nullptr)) {}

PrimaryContext &PrimaryContext::operator=(PrimaryContext &&other) noexcept {
  if (this != &other) {
    if (Context)
      driver::api().cuDevicePrimaryCtxRelease(Device);
    Device = other.Device;
    Context = std::exchange(other.Context, nullptr);
  }
  return *this;
}

std::string PrimaryContext::deviceDescription() const {
  char name[256] = {};
  driver::check(driver::api().cuDeviceGetName(name, sizeof name - 1, Device), "cuDeviceGetName");
  return std::string(name) + " (" + computeCapability(Device) + ")";
}

DeviceBuffer::DeviceBuffer(size_t bytes) : Bytes(bytes) {
  if (bytes == 0)
    return;
  currentDevice("allocate device memory");
  driver::check(driver::api().cuMemAlloc(&Address, bytes), "cuMemAlloc",
                std::to_string(bytes) + " bytes");
}

DeviceBuffer::~DeviceBuffer() {
  if (Address)
    driver::api().cuMemFree(Address); // nothing to do about a failure here
}

DeviceBuffer::DeviceBuffer(DeviceBuffer &&other) noexcept
    : Address(std::exchange(other.Address, 0)), Bytes(std::exchange(other.Bytes, 0)) {}

DeviceBuffer &DeviceBuffer::operator=(DeviceBuffer &&other) noexcept {
  if (this != &other) {
    if (Address)
      driver::api().cuMemFree(Address);
    Address = std::exchange(other.Address, 0);
    Bytes = std::exchange(other.Bytes, 0);
  }
  return *this;
}

void DeviceBuffer::copyFromHost(const void *source, size_t bytes) {
  if (bytes > Bytes)
    throw Error("DeviceBuffer::copyFromHost: " + std::to_string(bytes) +
                " bytes into a buffer of " + std::to_string(Bytes));
  if (bytes)
    driver::check(driver::api().cuMemcpyHtoD(Address, source, bytes), "cuMemcpyHtoD");
}

void DeviceBuffer::copyToHost(void *destination, size_t bytes) const {
  if (bytes > Bytes)
    throw Error("DeviceBuffer::copyToHost: " + std::to_string(bytes) + " bytes from a buffer of " +
                std::to_string(Bytes));
  if (bytes)
    driver::check(driver::api().cuMemcpyDtoH(destination, Address, bytes), "cuMemcpyDtoH");
}

void synchronize() {
  CUresult result = driver::api().cuCtxSynchronize();
  if (result == CUDA_SUCCESS)
    return;
  std::string detail;
  switch (result) {
  // The errors of a kernel that failed while it ran (a trap, a bad address...). CUDA documents
  // them as sticky: every later call in the context fails the same way.
  case CUDA_ERROR_ILLEGAL_ADDRESS:
  case CUDA_ERROR_LAUNCH_TIMEOUT:
  case CUDA_ERROR_ASSERT:
  case CUDA_ERROR_HARDWARE_STACK_ERROR:
  case CUDA_ERROR_ILLEGAL_INSTRUCTION:
  case CUDA_ERROR_MISALIGNED_ADDRESS:
  case CUDA_ERROR_INVALID_ADDRESS_SPACE:
  case CUDA_ERROR_INVALID_PC:
  case CUDA_ERROR_LAUNCH_FAILED:
    detail = "a kernel launched earlier failed while it ran; CUDA keeps this error for the rest "
             "of the process (it documents such faults as unrecoverable): every later CUDA call "
             "fails the same way, and even a reset of the primary context does not bring the "
             "device back (seen on driver 580); restart the process";
    break;
  default:
    break;
  }
  driver::fail(result, "cuCtxSynchronize", detail);
}

//===----------------------------------------------------------------------===//
// Modules and kernels
//===----------------------------------------------------------------------===//

namespace detail {

struct AutotuneState {
  std::mutex Mutex;
  std::string Pinned; // an entry, or empty
  std::string Id;     // names the kernel in the autotune cache: PTX hash, kernel, device
};

struct KernelState {
  const KernelInfo *Info = nullptr;
  CUfunction Function = nullptr;
  CUcontext Context = nullptr; // the module's
  unsigned DynamicSharedBytes = 0;
  std::vector<KernelState> Variants; // autotuned kernels, parallel to Info->Variants
  std::shared_ptr<AutotuneState> Tuning;
};

struct ModuleState {
  Metadata Meta;
  CUmodule Handle = nullptr;
  CUcontext Context = nullptr; // the module's: current when it was loaded
  std::string InfoLog;
  std::vector<KernelState> Kernels; // parallel to Meta.Kernels

  ModuleState() = default;
  ModuleState(const ModuleState &) = delete;
  ModuleState &operator=(const ModuleState &) = delete;
  ~ModuleState() {
    if (!Handle)
      return;
    // Unload in the module's context, whichever is current now. Failures are ignored: the
    // context may be gone already (its owner destroyed it first), and then so is the module.
    const driver::Api &cu = driver::api();
    CUcontext current = nullptr;
    bool switched = cu.cuCtxGetCurrent(&current) == CUDA_SUCCESS && current != Context &&
                    cu.cuCtxPushCurrent(Context) == CUDA_SUCCESS;
    cu.cuModuleUnload(Handle);
    if (switched)
      cu.cuCtxPopCurrent(&current);
  }
};

} // namespace detail

namespace {

/// Checks, as far as the driver can tell (cuFuncGetParamInfo, CUDA 12.4), that the .entry has the
/// parameters the metadata lists: as many, each of the size of its type. A mismatch means the PTX
/// and the metadata do not belong together, and launching would pass garbage.
void checkParamsAgainstPtx(const KernelInfo &info, CUfunction function, const std::string &where) {
  const driver::Api &cu = driver::api();
  if (!cu.cuFuncGetParamInfo)
    return;
  // Only the parameters the metadata lists are queried: asking for one past the last would be a
  // failing driver call, which compute-sanitizer reports as an error in the user's program. So an
  // .entry with extra trailing parameters goes unnoticed; fewer, or different sizes, do not.
  // The tensor maps (hidden parameters after them) are checked as well: 128 bytes each.
  // So is the global scratch pointer, the last parameter of a kernel that has one.
  size_t listed =
      info.Params.size() + info.TensorMaps.size() + (info.GlobalScratchBytes > 0 ? 1 : 0);
  for (size_t i = 0; i < listed; ++i) {
    size_t offset = 0, size = 0;
    CUresult result = cu.cuFuncGetParamInfo(function, i, &offset, &size);
    bool exists = result == CUDA_SUCCESS;
    if (!exists && result != CUDA_ERROR_INVALID_VALUE)
      return; // the driver cannot tell for this function
    if (!exists)
      throw Error(where + ": the .entry " + info.Entry + " has " + std::to_string(i) +
                  " parameters, and the metadata lists " + std::to_string(info.Params.size()) +
                  (info.TensorMaps.empty()
                       ? std::string()
                       : " and " + std::to_string(info.TensorMaps.size()) + " tensor maps"));
    if (i >= info.Params.size() + info.TensorMaps.size()) {
      if (size != sizeof(CUdeviceptr))
        throw Error(where + ": parameter " + std::to_string(i) + " of .entry " + info.Entry +
                    " is " + std::to_string(size) + " bytes in the PTX, and the metadata's " +
                    "global scratch pointer is " + std::to_string(sizeof(CUdeviceptr)));
      continue;
    }
    if (i >= info.Params.size()) {
      if (size != sizeof(CUtensorMap))
        throw Error(where + ": parameter " + std::to_string(i) + " of .entry " + info.Entry +
                    " is " + std::to_string(size) + " bytes in the PTX, and the metadata's " +
                    "tensor map " + std::to_string(i - info.Params.size()) + " is " +
                    std::to_string(sizeof(CUtensorMap)));
      continue;
    }
    const ParamInfo &param = info.Params[i];
    size_t expected = param.Type.IsPointer ? sizeof(CUdeviceptr) : dtypeBytes(param.Type.Element);
    // i1 is one byte in memory, but a code generator may pass it in a wider register.
    bool sizeMatches = size == expected || (param.Type.Element == DType::I1 &&
                                            !param.Type.IsPointer && size <= sizeof(uint64_t));
    if (!sizeMatches)
      throw Error(where + ": parameter " + std::to_string(i) + " (" + param.Name + ": " +
                  param.Type.str() + ") of .entry " + info.Entry + " is " + std::to_string(size) +
                  " bytes in the PTX, and " + param.Type.str() + " is " + std::to_string(expected));
  }
}

detail::KernelState prepareKernel(const KernelInfo &info, CUmodule module, CUdevice device,
                                  const std::string &where) {
  const driver::Api &cu = driver::api();
  detail::KernelState state;
  state.Info = &info;
  CUresult result = cu.cuModuleGetFunction(&state.Function, module, info.Entry.c_str());
  if (result == CUDA_ERROR_NOT_FOUND)
    throw Error(where + ": no .entry " + info.Entry + " (the metadata's kernel " + info.Name + ")",
                result);
  driver::check(result, "cuModuleGetFunction", "entry " + info.Entry + " of " + where);

  // (Querying an attribute first also makes the driver load the function if it loads lazily.)
  int maxThreads = 0;
  driver::check(
      cu.cuFuncGetAttribute(&maxThreads, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, state.Function),
      "cuFuncGetAttribute(MAX_THREADS_PER_BLOCK)");
  if (info.ThreadsPerBlock > static_cast<unsigned>(maxThreads))
    throw Error(where + ": kernel " + info.Name + " runs " + std::to_string(info.ThreadsPerBlock) +
                " threads per block (num_warps " + std::to_string(info.NumWarps) +
                "), but its register use allows at most " + std::to_string(maxThreads));
  checkParamsAgainstPtx(info, state.Function, where);

  // The metadata gives the total shared memory; the PTX may declare part of it statically, and
  // the launch provides the rest dynamically.
  int staticBytes = 0;
  driver::check(
      cu.cuFuncGetAttribute(&staticBytes, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, state.Function),
      "cuFuncGetAttribute(SHARED_SIZE_BYTES)");
  unsigned staticShared = static_cast<unsigned>(staticBytes);
  state.DynamicSharedBytes =
      info.SharedMemoryBytes > staticShared ? info.SharedMemoryBytes - staticShared : 0;
  if (state.DynamicSharedBytes > DefaultDynamicSharedLimit) {
    int optInLimit = 0;
    driver::check(cu.cuDeviceGetAttribute(
                      &optInLimit, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN, device),
                  "cuDeviceGetAttribute(MAX_SHARED_MEMORY_PER_BLOCK_OPTIN)");
    if (info.SharedMemoryBytes > static_cast<unsigned>(optInLimit))
      throw Error(where + ": kernel " + info.Name + " needs " +
                  std::to_string(info.SharedMemoryBytes) +
                  " bytes of shared memory per block, and this device (" +
                  computeCapability(device) + ") allows at most " + std::to_string(optInLimit));
    driver::check(
        cu.cuFuncSetAttribute(state.Function, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                              static_cast<int>(state.DynamicSharedBytes)),
        "cuFuncSetAttribute(MAX_DYNAMIC_SHARED_SIZE_BYTES)",
        "kernel " + info.Name + ", " + std::to_string(state.DynamicSharedBytes) + " bytes");
  }
  return state;
}

} // namespace

Module Module::loadFromMemory(std::string_view ptx, std::string_view metadataJson,
                              std::string_view ptxOrigin, std::string_view metadataOrigin) {
  // The metadata first: its errors need no GPU and explain more than a failed load would.
  auto state = std::make_shared<detail::ModuleState>();
  state->Meta = Metadata::parse(metadataJson, metadataOrigin);
  std::string where(ptxOrigin);

  const driver::Api &cu = driver::api();
  CUdevice device = currentDevice(("load " + where).c_str());
  driver::check(cu.cuCtxGetCurrent(&state->Context), "cuCtxGetCurrent");
  std::string text(ptx); // the driver reads PTX up to a NUL
  std::vector<char> infoLog(JitLogBytes, '\0'), errorLog(JitLogBytes, '\0');
  CUjit_option options[] = {CU_JIT_INFO_LOG_BUFFER, CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES,
                            CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
  void *values[] = {infoLog.data(), reinterpret_cast<void *>(infoLog.size() - 1), errorLog.data(),
                    reinterpret_cast<void *>(errorLog.size() - 1)};
  CUresult result =
      cu.cuModuleLoadDataEx(&state->Handle, text.c_str(), std::size(options), options, values);
  if (result != CUDA_SUCCESS) {
    state->Handle = nullptr;
    std::string log = trimLog(errorLog);
    driver::fail(result, "cuModuleLoadDataEx",
                 "while loading " + where + " (metadata target " + state->Meta.Target +
                     ", device " + computeCapability(device) + ")\nJIT error log:\n" +
                     (log.empty() ? "(empty)" : log));
  }
  state->InfoLog = trimLog(infoLog);

  state->Kernels.reserve(state->Meta.Kernels.size());
  uint64_t ptxHash = 1469598103934665603ull; // FNV-1a: the cache's choices belong to this PTX
  for (char c : ptx)
    ptxHash = (ptxHash ^ static_cast<unsigned char>(c)) * 1099511628211ull;
  for (const KernelInfo &info : state->Meta.Kernels) {
    detail::KernelState kernel = prepareKernel(info, state->Handle, device, where);
    kernel.Context = state->Context;
    if (!info.Variants.empty()) {
      kernel.Tuning = std::make_shared<detail::AutotuneState>();
      char hash[32];
      std::snprintf(hash, sizeof hash, "%016llx", static_cast<unsigned long long>(ptxHash));
      kernel.Tuning->Id = std::string(hash) + "-" + info.Name + "-" + computeCapability(device);
      for (const KernelInfo &variant : info.Variants) {
        kernel.Variants.push_back(prepareKernel(variant, state->Handle, device, where));
        kernel.Variants.back().Context = state->Context;
      }
    }
    state->Kernels.push_back(std::move(kernel));
  }
  return Module(std::move(state));
}

Module Module::loadFile(const std::string &ptxPath, const std::string &metadataPath) {
  std::string metadata = readTextFile(metadataPath, "metadata file");
  std::string ptx = readTextFile(ptxPath, "PTX file");
  return loadFromMemory(ptx, metadata, ptxPath, metadataPath);
}

Kernel Module::kernel(std::string_view name) const {
  const KernelInfo &info = State->Meta.kernel(name); // throws, listing the kernels
  size_t index = static_cast<size_t>(&info - State->Meta.Kernels.data());
  // Shares ownership of the module, points at one of its kernels.
  return Kernel(std::shared_ptr<const detail::KernelState>(State, &State->Kernels[index]));
}

const Metadata &Module::metadata() const {
  return State->Meta;
}
CUmodule Module::handle() const {
  return State->Handle;
}
const std::string &Module::jitInfoLog() const {
  return State->InfoLog;
}

const KernelInfo &Kernel::info() const {
  return *State->Info;
}
CUfunction Kernel::handle() const {
  return State->Function;
}
unsigned Kernel::blockSize() const {
  return State->Info->ThreadsPerBlock;
}
unsigned Kernel::dynamicSharedBytes() const {
  return State->DynamicSharedBytes;
}

void Kernel::launchArgs(const LaunchGrid &grid, CUstream stream,
                        const std::vector<Arg> &args) const {
  std::vector<uint64_t> slots(args.size());
  launchPacked(grid, stream, args.data(), args.size(), slots.data());
}

namespace {

/// Launches one kernel (or variant) with packed arguments.
void launchState(const detail::KernelState &state, Grid grid, CUstream stream, size_t count,
                 uint64_t *slots) {
  const KernelInfo &info = *state.Info;
  if (grid.X == 0 || grid.Y == 0 || grid.Z == 0)
    return; // an empty grid: nothing to run, as in Triton

  // The tensor maps of TMA loads: hidden parameters after the others, built from the packed
  // descriptor parameters, alive until cuLaunchKernel has copied them.
  std::vector<CUtensorMap> maps(info.TensorMaps.size());
  for (size_t i = 0; i < maps.size(); ++i)
    encodeTensorMap(tensorMapEncodeArgs(info, i, slots), maps[i],
                    "kernel " + info.Name + ", tensor map " + std::to_string(i) +
                        " of descriptor " +
                        info.TensorDescriptors[info.TensorMaps[i].Descriptor].Name);

  // The global scratch of a kernel that writes its own tensor maps: the last parameter, in the
  // stream's order allocated before the launch and freed after it (the driver's memory pool
  // makes both cheap), so that launches on several streams never share it.
  CUdeviceptr scratch = 0;
  if (info.GlobalScratchBytes > 0) {
    const driver::Api &cu = driver::api();
    if (!cu.cuMemAllocAsync || !cu.cuMemFreeAsync)
      throw Error("kernel " + info.Name +
                  " needs global scratch memory, which this CUDA driver "
                  "cannot allocate in stream order (cuMemAllocAsync, CUDA 11.2)");
    size_t bytes = size_t(info.GlobalScratchBytes) * grid.X * grid.Y * grid.Z;
    CUresult result = cu.cuMemAllocAsync(&scratch, bytes, stream);
    if (result != CUDA_SUCCESS)
      driver::fail(result, "cuMemAllocAsync",
                   "global scratch of kernel " + info.Name + ", " + std::to_string(bytes) +
                       " bytes");
  }
  struct FreeScratch {
    CUdeviceptr pointer;
    CUstream stream;
    ~FreeScratch() {
      if (pointer)
        driver::api().cuMemFreeAsync(pointer, stream);
    }
  } freeScratch{scratch, stream};

  // Kernels rarely have more than a handful of parameters: keep the common launch off the heap.
  size_t total = count + maps.size() + (scratch ? 1 : 0);
  void *inlinePointers[16];
  std::vector<void *> heapPointers;
  void **pointers = inlinePointers;
  if (total > std::size(inlinePointers)) {
    heapPointers.resize(total);
    pointers = heapPointers.data();
  }
  for (size_t i = 0; i < count; ++i)
    pointers[i] = &slots[i];
  for (size_t i = 0; i < maps.size(); ++i)
    pointers[count + i] = &maps[i];
  if (scratch)
    pointers[count + maps.size()] = &scratch;
  CUresult result = driver::api().cuLaunchKernel(
      state.Function, grid.X, grid.Y, grid.Z, info.ThreadsPerBlock, 1, 1, state.DynamicSharedBytes,
      stream, total ? pointers : nullptr, nullptr);
  if (result == CUDA_SUCCESS)
    return;
  std::string detail = "kernel " + info.Name + " (entry " + info.Entry + "), grid (" +
                       std::to_string(grid.X) + ", " + std::to_string(grid.Y) + ", " +
                       std::to_string(grid.Z) + "), block (" +
                       std::to_string(info.ThreadsPerBlock) + ", 1, 1), dynamic shared memory " +
                       std::to_string(state.DynamicSharedBytes) + " bytes";
  CUcontext current = nullptr;
  if (driver::api().cuCtxGetCurrent(&current) == CUDA_SUCCESS && current != state.Context)
    detail += "; the current context is not the one the module was loaded in";
  driver::fail(result, "cuLaunchKernel", detail);
}

/// The autotune key of a launch: the key parameters' values ("n_elements=4096"). Pointers key on
/// their type only, as Triton keys tensors on their dtype.
std::string autotuneKey(const KernelInfo &info, const Arg *args, size_t count) {
  std::string key;
  for (const std::string &name : info.AutotuneKey) {
    for (size_t i = 0; i < info.Params.size() && i < count; ++i) {
      if (info.Params[i].Name != name)
        continue;
      key += (key.empty() ? "" : ",") + name + "=";
      key += info.Params[i].Type.IsPointer ? info.Params[i].Type.str()
                                           : std::to_string(args[i].bits());
    }
  }
  return key;
}

size_t variantIndex(const KernelInfo &info, const std::string &entry) {
  for (size_t i = 0; i < info.Variants.size(); ++i)
    if (info.Variants[i].Entry == entry)
      return i;
  std::string list;
  for (const KernelInfo &variant : info.Variants)
    list += (list.empty() ? "" : ", ") + variant.Entry;
  throw Error("kernel " + info.Name + " has no variant '" + entry + "' (variants: " + list + ")");
}

} // namespace

void Kernel::launchPacked(const LaunchGrid &grid, CUstream stream, const Arg *args, size_t count,
                          uint64_t *slots) const {
  const KernelInfo &info = *State->Info;
  // TensorDescriptor arguments stand for several parameters each: launch their expansion.
  std::vector<Arg> expanded;
  std::vector<uint64_t> expandedSlots;
  if (std::any_of(args, args + count, [](const Arg &a) { return a.descriptor() != nullptr; })) {
    expanded = expandTensorDescriptors(info, args, count);
    expandedSlots.resize(expanded.size());
    args = expanded.data();
    count = expanded.size();
    slots = expandedSlots.data();
  }
  packArguments(info, args, count, slots);
  if (info.Variants.empty()) {
    launchState(*State, grid(info), stream, count, slots);
    return;
  }
  detail::AutotuneState &tuning = *State->Tuning;
  std::string key = autotuneKey(info, args, count);
  std::string entry;
  {
    std::lock_guard<std::mutex> lock(tuning.Mutex);
    entry = tuning.Pinned;
  }
  if (entry.empty()) {
    autotune::Cache &cache = autotune::Cache::global();
    if (auto cached = cache.lookup(tuning.Id, key)) {
      entry = *cached;
    } else {
      // Each variant checks the arguments against its own alignment promises, then is timed.
      size_t fastest = autotune::pickFastest(info.Variants.size(), [&](size_t i) {
        const detail::KernelState &variant = State->Variants[i];
        std::vector<uint64_t> variantSlots(count);
        packArguments(*variant.Info, args, count, variantSlots.data());
        Grid variantGrid = grid(*variant.Info);
        return autotune::detail::time(*variant.Info, stream, [&] {
          launchState(variant, variantGrid, stream, count, variantSlots.data());
        });
      });
      entry = info.Variants[fastest].Entry;
      cache.store(tuning.Id, key, entry);
    }
  }
  const detail::KernelState &variant = State->Variants[variantIndex(info, entry)];
  std::vector<uint64_t> variantSlots(count);
  packArguments(*variant.Info, args, count, variantSlots.data());
  launchState(variant, grid(*variant.Info), stream, count, variantSlots.data());
}

void Kernel::pin(const std::string &entry) const {
  const KernelInfo &info = *State->Info;
  if (info.Variants.empty())
    throw Error("kernel " + info.Name + " is not autotuned: there is no variant to pin");
  if (!entry.empty())
    variantIndex(info, entry); // throws for an unknown one
  std::lock_guard<std::mutex> lock(State->Tuning->Mutex);
  State->Tuning->Pinned = entry;
}

std::string Kernel::chosenEntry(const std::vector<Arg> &args) const {
  const KernelInfo &info = *State->Info;
  if (info.Variants.empty())
    return info.Entry;
  {
    std::lock_guard<std::mutex> lock(State->Tuning->Mutex);
    if (!State->Tuning->Pinned.empty())
      return State->Tuning->Pinned;
  }
  return autotune::Cache::global()
      .lookup(State->Tuning->Id, autotuneKey(info, args.data(), args.size()))
      .value_or("");
}

} // namespace tilec::rt
