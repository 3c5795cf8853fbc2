/*===- FakeDriver.c - A CUDA driver with one fake device, for fault tests -===//
//
// Exports the driver entry points the runtime resolves (runtime/src/DriverFunctions.def; the
// optional ones are left out, but for cuTensorMapEncodeTiled, cuMemAllocAsync and cuMemFreeAsync)
and behaves like one working device, with host memory standing in
// for device memory, so the runtime can be tested on a machine without a GPU (TILEC_CUDA_DRIVER
// points at this library).
//
// Fault injection, read from the environment:
//   FAKE_CUDA_FAIL         the exported name of the call to fail (cuModuleLoadDataEx,
//                          cuMemAlloc_v2, cuLaunchKernel, cuCtxSynchronize...);
//   FAKE_CUDA_FAIL_RESULT  the CUresult it returns (default 999, CUDA_ERROR_UNKNOWN);
//   FAKE_CUDA_FAIL_COUNT   how many calls fail (default 1); later calls succeed again.
// A failing cuModuleLoadDataEx also writes a line to the JIT error log buffer, if given one.
//   FAKE_CUDA_STICKY       if set, the injected error is sticky, as a real kernel fault is: every
//                          later call that needs the context fails with it.
//
// Kernels: cuModuleGetFunction finds ".entry <name>" in the PTX text. A launch of an entry
// named "fill" with parameters (float *out, int n) sets out[0..n) to 42. A launch of "tma_probe",
// whose parameters are (out: *u8, a rank-2 tensor descriptor's 6, the descriptor's tensor map),
// copies the map's 128 bytes to out[0..128) and sets out[128] to 1 when the map's address is
// 64-byte aligned. A launch of "scratch_probe", whose parameters are (out: *u64, n: i32, then the
// global scratch pointer), writes out[0] = the scratch's address, out[1] = the bytes it was
// allocated with, out[2] = the stream it was allocated on, and fills the scratch (so that
// LeakSanitizer and the allocator see a real buffer). Other entries do nothing.
//
// cuTensorMapEncodeTiled checks what the driver documents that tilec relies on (a 64-byte
// aligned map, rank 1..5, a 16-byte aligned address, dims 1..2^32, strides multiples of 16 below
// 2^40, boxes 1..256) and writes its arguments into the map (see fakeTensorMap below) instead of
// a real encoding, so tests can read back what the runtime passed.
//
// The definitions go through cuda.h's macros, so cuMemAlloc defines cuMemAlloc_v2, as the runtime
// resolves it.
//
//===----------------------------------------------------------------------===*/

#include <cuda.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FAKE_EXPORT __attribute__((visibility("default")))

static int Initialized = 0;
static int PrimaryContextStorage;
static CUcontext const PrimaryContext = (CUcontext)&PrimaryContextStorage;
static CUcontext Current = NULL;
static int PrimaryRetains = 0;
static long FailuresLeft = -1; /* -1: not read from the environment yet */
static CUresult StickyError = CUDA_SUCCESS;
/* The last cuMemAllocAsync's size and stream, and the allocations it made that are not freed. */
static size_t LastAsyncBytes = 0;
static CUstream LastAsyncStream = NULL;
static int LiveAsyncAllocations = 0;

struct FakeModule {
  char *Ptx;
  /* The functions looked up in it (copies of their names), freed with the module. */
  char **Functions;
  size_t NumFunctions;
};

/* The result of a call named \p name: the injected failure while there are failures left. */
static CUresult injected(const char *name) {
  const char *target = getenv("FAKE_CUDA_FAIL");
  if (!target || strcmp(target, name) != 0)
    return CUDA_SUCCESS;
  if (FailuresLeft < 0) {
    const char *count = getenv("FAKE_CUDA_FAIL_COUNT");
    FailuresLeft = count && *count ? strtol(count, NULL, 10) : 1;
  }
  if (FailuresLeft == 0)
    return CUDA_SUCCESS;
  --FailuresLeft;
  const char *text = getenv("FAKE_CUDA_FAIL_RESULT");
  CUresult result = text && *text ? (CUresult)strtol(text, NULL, 10) : CUDA_ERROR_UNKNOWN;
  if (getenv("FAKE_CUDA_STICKY"))
    StickyError = result;
  return result;
}

#define INJECT()                                                                                   \
  do {                                                                                             \
    CUresult injectedResult = injected(__func__);                                                  \
    if (injectedResult != CUDA_SUCCESS)                                                            \
      return injectedResult;                                                                       \
  } while (0)

#define NEED_INIT()                                                                                \
  do {                                                                                             \
    if (!Initialized)                                                                              \
      return CUDA_ERROR_NOT_INITIALIZED;                                                           \
  } while (0)

#define NEED_CONTEXT()                                                                             \
  do {                                                                                             \
    NEED_INIT();                                                                                   \
    if (!Current)                                                                                  \
      return CUDA_ERROR_INVALID_CONTEXT;                                                           \
    if (StickyError != CUDA_SUCCESS)                                                               \
      return StickyError;                                                                          \
  } while (0)

/*===- Errors -------------------------------------------------------------===*/

static const struct {
  CUresult Result;
  const char *Name;
  const char *Description;
} Errors[] = {
    {CUDA_SUCCESS, "CUDA_SUCCESS", "no error"},
    {CUDA_ERROR_INVALID_VALUE, "CUDA_ERROR_INVALID_VALUE", "invalid argument"},
    {CUDA_ERROR_OUT_OF_MEMORY, "CUDA_ERROR_OUT_OF_MEMORY", "out of memory"},
    {CUDA_ERROR_NOT_INITIALIZED, "CUDA_ERROR_NOT_INITIALIZED", "initialization error"},
    {CUDA_ERROR_NO_DEVICE, "CUDA_ERROR_NO_DEVICE", "no CUDA-capable device is detected"},
    {CUDA_ERROR_INVALID_DEVICE, "CUDA_ERROR_INVALID_DEVICE", "invalid device ordinal"},
    {CUDA_ERROR_INVALID_IMAGE, "CUDA_ERROR_INVALID_IMAGE", "device kernel image is invalid"},
    {CUDA_ERROR_INVALID_CONTEXT, "CUDA_ERROR_INVALID_CONTEXT", "invalid device context"},
    {CUDA_ERROR_INVALID_PTX, "CUDA_ERROR_INVALID_PTX", "a PTX JIT compilation failed"},
    {CUDA_ERROR_NOT_FOUND, "CUDA_ERROR_NOT_FOUND", "named symbol not found"},
    {CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES, "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES",
     "too many resources requested for launch"},
    {CUDA_ERROR_ILLEGAL_ADDRESS, "CUDA_ERROR_ILLEGAL_ADDRESS",
     "an illegal memory access was encountered"},
    {CUDA_ERROR_ILLEGAL_INSTRUCTION, "CUDA_ERROR_ILLEGAL_INSTRUCTION",
     "an illegal instruction was encountered"},
    {CUDA_ERROR_LAUNCH_FAILED, "CUDA_ERROR_LAUNCH_FAILED", "unspecified launch failure"},
    {CUDA_ERROR_UNKNOWN, "CUDA_ERROR_UNKNOWN", "unknown error"},
};

FAKE_EXPORT CUresult cuGetErrorName(CUresult error, const char **pStr) {
  for (size_t i = 0; i < sizeof Errors / sizeof Errors[0]; ++i)
    if (Errors[i].Result == error) {
      *pStr = Errors[i].Name;
      return CUDA_SUCCESS;
    }
  *pStr = NULL;
  return CUDA_ERROR_INVALID_VALUE;
}

FAKE_EXPORT CUresult cuGetErrorString(CUresult error, const char **pStr) {
  for (size_t i = 0; i < sizeof Errors / sizeof Errors[0]; ++i)
    if (Errors[i].Result == error) {
      *pStr = Errors[i].Description;
      return CUDA_SUCCESS;
    }
  *pStr = NULL;
  return CUDA_ERROR_INVALID_VALUE;
}

/*===- Driver, devices, contexts ------------------------------------------===*/

FAKE_EXPORT CUresult cuInit(unsigned int flags) {
  (void)flags;
  INJECT();
  Initialized = 1;
  return CUDA_SUCCESS;
}

FAKE_EXPORT CUresult cuDriverGetVersion(int *driverVersion) {
  *driverVersion = CUDA_VERSION;
  return CUDA_SUCCESS;
}

FAKE_EXPORT CUresult cuDeviceGetCount(int *count) {
  NEED_INIT();
  INJECT();
  *count = 1;
  return CUDA_SUCCESS;
}

FAKE_EXPORT CUresult cuDeviceGet(CUdevice *device, int ordinal) {
  NEED_INIT();
  INJECT();
  if (ordinal != 0)
    return CUDA_ERROR_INVALID_DEVICE;
  *device = 0;
  return CUDA_SUCCESS;
}

FAKE_EXPORT CUresult cuDeviceGetName(char *name, int len, CUdevice dev) {
  NEED_INIT();
  if (dev != 0)
    return CUDA_ERROR_INVALID_DEVICE;
  snprintf(name, (size_t)len, "%s", "tilec fake device");
  return CUDA_SUCCESS;
}

FAKE_EXPORT CUresult cuDeviceGetAttribute(int *pi, CUdevice_attribute attrib, CUdevice dev) {
  NEED_INIT();
  INJECT();
  if (dev != 0)
    return CUDA_ERROR_INVALID_DEVICE;
  switch (attrib) {
  case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR:
    *pi = 9;
    return CUDA_SUCCESS;
  case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR:
    *pi = 0;
    return CUDA_SUCCESS;
  case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN:
    *pi = 227 * 1024;
    return CUDA_SUCCESS;
  default:
    *pi = 0;
    return CUDA_SUCCESS;
  }
}

FAKE_EXPORT CUresult cuDevicePrimaryCtxRetain(CUcontext *pctx, CUdevice dev) {
  NEED_INIT();
  INJECT();
  if (dev != 0)
    return CUDA_ERROR_INVALID_DEVICE;
  ++PrimaryRetains;
  *pctx = PrimaryContext;
  return CUDA_SUCCESS;
}

FAKE_EXPORT CUresult cuDevicePrimaryCtxRelease(CUdevice dev) {
  NEED_INIT();
  if (dev != 0 || PrimaryRetains == 0)
    return CUDA_ERROR_INVALID_VALUE;
  --PrimaryRetains;
  return CUDA_SUCCESS;
}

FAKE_EXPORT CUresult cuCtxGetCurrent(CUcontext *pctx) {
  NEED_INIT();
  *pctx = Current;
  return CUDA_SUCCESS;
}

FAKE_EXPORT CUresult cuCtxSetCurrent(CUcontext ctx) {
  NEED_INIT();
  INJECT();
  if (ctx && ctx != PrimaryContext)
    return CUDA_ERROR_INVALID_CONTEXT;
  Current = ctx;
  return CUDA_SUCCESS;
}

FAKE_EXPORT CUresult cuCtxGetDevice(CUdevice *device) {
  NEED_CONTEXT();
  *device = 0;
  return CUDA_SUCCESS;
}

FAKE_EXPORT CUresult cuCtxSynchronize(void) {
  NEED_CONTEXT();
  INJECT();
  return CUDA_SUCCESS;
}

/* One context only: push and pop keep it current. */
FAKE_EXPORT CUresult cuCtxPushCurrent(CUcontext ctx) {
  NEED_INIT();
  if (ctx != PrimaryContext)
    return CUDA_ERROR_INVALID_CONTEXT;
  Current = ctx;
  return CUDA_SUCCESS;
}

FAKE_EXPORT CUresult cuCtxPopCurrent(CUcontext *pctx) {
  NEED_CONTEXT();
  if (pctx)
    *pctx = Current;
  return CUDA_SUCCESS;
}

/*===- Modules and functions ----------------------------------------------===*/

FAKE_EXPORT CUresult cuModuleLoadDataEx(CUmodule *module, const void *image,
                                        unsigned int numOptions, CUjit_option *options,
                                        void **optionValues) {
  NEED_CONTEXT();
  CUresult result = injected(__func__);
  if (result != CUDA_SUCCESS) {
    char *log = NULL;
    size_t logBytes = 0;
    for (unsigned i = 0; i < numOptions; ++i) {
      if (options[i] == CU_JIT_ERROR_LOG_BUFFER)
        log = (char *)optionValues[i];
      else if (options[i] == CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES)
        logBytes = (size_t)(uintptr_t)optionValues[i];
    }
    if (log && logBytes)
      snprintf(log, logBytes, "fake driver: injected failure %d", (int)result);
    return result;
  }
  struct FakeModule *fake = calloc(1, sizeof *fake);
  fake->Ptx = strdup((const char *)image);
  *module = (CUmodule)fake;
  return CUDA_SUCCESS;
}

FAKE_EXPORT CUresult cuModuleUnload(CUmodule hmod) {
  NEED_INIT();
  struct FakeModule *fake = (struct FakeModule *)hmod;
  if (!fake)
    return CUDA_ERROR_INVALID_VALUE;
  for (size_t i = 0; i < fake->NumFunctions; ++i)
    free(fake->Functions[i]);
  free(fake->Functions);
  free(fake->Ptx);
  free(fake);
  return CUDA_SUCCESS;
}

/* A function is a copy of its entry's name, owned by its module (LeakSanitizer runs the
   runtime's tests through this fake). */
FAKE_EXPORT CUresult cuModuleGetFunction(CUfunction *hfunc, CUmodule hmod, const char *name) {
  NEED_CONTEXT();
  INJECT();
  struct FakeModule *fake = (struct FakeModule *)hmod;
  size_t length = strlen(name);
  for (const char *at = strstr(fake->Ptx, ".entry "); at; at = strstr(at + 1, ".entry ")) {
    const char *symbol = at + strlen(".entry ");
    char next = symbol[length];
    if (strncmp(symbol, name, length) == 0 && (next == '(' || next == ' ' || next == '\n')) {
      char **grown = realloc(fake->Functions, (fake->NumFunctions + 1) * sizeof *grown);
      if (!grown)
        return CUDA_ERROR_OUT_OF_MEMORY;
      fake->Functions = grown;
      fake->Functions[fake->NumFunctions] = strdup(name);
      *hfunc = (CUfunction)fake->Functions[fake->NumFunctions++];
      return CUDA_SUCCESS;
    }
  }
  return CUDA_ERROR_NOT_FOUND;
}

FAKE_EXPORT CUresult cuFuncGetAttribute(int *pi, CUfunction_attribute attrib, CUfunction hfunc) {
  NEED_CONTEXT();
  (void)hfunc;
  *pi = attrib == CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK ? 1024 : 0;
  return CUDA_SUCCESS;
}

FAKE_EXPORT CUresult cuFuncSetAttribute(CUfunction hfunc, CUfunction_attribute attrib, int value) {
  NEED_CONTEXT();
  INJECT();
  (void)hfunc;
  (void)attrib;
  (void)value;
  return CUDA_SUCCESS;
}

/* The fake encoding: opaque[0] "tilecTMA", [1] data type | rank << 8 | interleave << 16 |
   swizzle << 24 | l2 promotion << 32 | fill << 40, [2] address, [3..7] dims, [8..11] strides,
   [12] box dims 0..3 (16 bits each), [13] box dim 4 | element strides << 16 (8 bits each). */
FAKE_EXPORT CUresult cuTensorMapEncodeTiled(
    CUtensorMap *tensorMap, CUtensorMapDataType dataType, cuuint32_t rank, void *globalAddress,
    const cuuint64_t *globalDim, const cuuint64_t *globalStrides, const cuuint32_t *boxDim,
    const cuuint32_t *elementStrides, CUtensorMapInterleave interleave, CUtensorMapSwizzle swizzle,
    CUtensorMapL2promotion l2Promotion, CUtensorMapFloatOOBfill oobFill) {
  NEED_INIT();
  INJECT();
  if (!tensorMap || (uintptr_t)tensorMap % 64 || rank < 1 || rank > 5 ||
      (uintptr_t)globalAddress % 16)
    return CUDA_ERROR_INVALID_VALUE;
  for (cuuint32_t d = 0; d < rank; ++d) {
    if (globalDim[d] < 1 || globalDim[d] > ((cuuint64_t)1 << 32) || boxDim[d] < 1 ||
        boxDim[d] > 256 || elementStrides[d] < 1 || elementStrides[d] > 8)
      return CUDA_ERROR_INVALID_VALUE;
    if (d + 1 < rank && (globalStrides[d] % 16 || globalStrides[d] >= ((cuuint64_t)1 << 40)))
      return CUDA_ERROR_INVALID_VALUE;
  }
  cuuint64_t *q = tensorMap->opaque;
  memset(q, 0, sizeof tensorMap->opaque);
  memcpy(&q[0], "tilecTMA", 8);
  q[1] = (cuuint64_t)dataType | (cuuint64_t)rank << 8 | (cuuint64_t)interleave << 16 |
         (cuuint64_t)swizzle << 24 | (cuuint64_t)l2Promotion << 32 | (cuuint64_t)oobFill << 40;
  q[2] = (cuuint64_t)(uintptr_t)globalAddress;
  for (cuuint32_t d = 0; d < rank; ++d) {
    q[3 + d] = globalDim[d];
    if (d + 1 < rank)
      q[8 + d] = globalStrides[d];
    if (d < 4)
      q[12] |= (cuuint64_t)boxDim[d] << (16 * d);
    else
      q[13] |= boxDim[d];
    q[13] |= (cuuint64_t)elementStrides[d] << (16 + 8 * d);
  }
  return CUDA_SUCCESS;
}

FAKE_EXPORT CUresult cuLaunchKernel(CUfunction f, unsigned int gridDimX, unsigned int gridDimY,
                                    unsigned int gridDimZ, unsigned int blockDimX,
                                    unsigned int blockDimY, unsigned int blockDimZ,
                                    unsigned int sharedMemBytes, CUstream hStream,
                                    void **kernelParams, void **extra) {
  NEED_CONTEXT();
  INJECT();
  (void)gridDimX, (void)gridDimY, (void)gridDimZ, (void)blockDimX, (void)blockDimY, (void)blockDimZ,
      (void)sharedMemBytes, (void)hStream, (void)extra;
  if (strcmp((const char *)f, "fill") == 0 && kernelParams) {
    float *out = (float *)(uintptr_t) * (CUdeviceptr *)kernelParams[0];
    int n = *(int *)kernelParams[1];
    for (int i = 0; i < n; ++i)
      out[i] = 42.0f;
  }
  if (strcmp((const char *)f, "scratch_probe") == 0 && kernelParams) {
    cuuint64_t *out = (cuuint64_t *)(uintptr_t) * (CUdeviceptr *)kernelParams[0];
    CUdeviceptr scratch = *(CUdeviceptr *)kernelParams[2];
    out[0] = scratch;
    out[1] = LastAsyncBytes;
    out[2] = (cuuint64_t)(uintptr_t)LastAsyncStream;
    memset((void *)(uintptr_t)scratch, 0xab, LastAsyncBytes);
  }
  if (strcmp((const char *)f, "tma_probe") == 0 && kernelParams) {
    unsigned char *out = (unsigned char *)(uintptr_t) * (CUdeviceptr *)kernelParams[0];
    memcpy(out, kernelParams[7], sizeof(CUtensorMap));
    out[sizeof(CUtensorMap)] = (uintptr_t)kernelParams[7] % 64 == 0;
  }
  return CUDA_SUCCESS;
}

/*===- Memory: host memory ------------------------------------------------===*/

FAKE_EXPORT CUresult cuMemAlloc(CUdeviceptr *dptr, size_t bytesize) {
  NEED_CONTEXT();
  INJECT();
  void *memory = malloc(bytesize ? bytesize : 1);
  if (!memory)
    return CUDA_ERROR_OUT_OF_MEMORY;
  *dptr = (CUdeviceptr)(uintptr_t)memory;
  return CUDA_SUCCESS;
}

/* Stream-ordered allocation, in host memory as the rest: the fake runs everything at once. */
FAKE_EXPORT CUresult cuMemAllocAsync(CUdeviceptr *dptr, size_t bytesize, CUstream hStream) {
  NEED_CONTEXT();
  INJECT();
  void *memory = malloc(bytesize ? bytesize : 1);
  if (!memory)
    return CUDA_ERROR_OUT_OF_MEMORY;
  *dptr = (CUdeviceptr)(uintptr_t)memory;
  LastAsyncBytes = bytesize;
  LastAsyncStream = hStream;
  ++LiveAsyncAllocations;
  return CUDA_SUCCESS;
}

FAKE_EXPORT CUresult cuMemFreeAsync(CUdeviceptr dptr, CUstream hStream) {
  (void)hStream;
  NEED_CONTEXT();
  INJECT();
  free((void *)(uintptr_t)dptr);
  --LiveAsyncAllocations;
  return CUDA_SUCCESS;
}

/* For tests: stream-ordered allocations not freed yet. */
FAKE_EXPORT int fakeLiveAsyncAllocations(void) {
  return LiveAsyncAllocations;
}

FAKE_EXPORT CUresult cuMemFree(CUdeviceptr dptr) {
  /* After a sticky error the free fails and the memory stays with the broken context, which a
     real driver releases with it; the fake releases its backing store either way (LeakSanitizer
     runs the runtime's tests through it). */
  if (StickyError != CUDA_SUCCESS) {
    free((void *)(uintptr_t)dptr);
    return StickyError;
  }
  NEED_CONTEXT();
  INJECT();
  free((void *)(uintptr_t)dptr);
  return CUDA_SUCCESS;
}

FAKE_EXPORT CUresult cuMemcpyHtoD(CUdeviceptr dstDevice, const void *srcHost, size_t ByteCount) {
  NEED_CONTEXT();
  INJECT();
  memcpy((void *)(uintptr_t)dstDevice, srcHost, ByteCount);
  return CUDA_SUCCESS;
}

FAKE_EXPORT CUresult cuMemcpyDtoH(void *dstHost, CUdeviceptr srcDevice, size_t ByteCount) {
  NEED_CONTEXT();
  INJECT();
  memcpy(dstHost, (const void *)(uintptr_t)srcDevice, ByteCount);
  return CUDA_SUCCESS;
}
