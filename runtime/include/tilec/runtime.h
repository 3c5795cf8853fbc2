/*===- tilec/runtime.h - C API of the tilec runtime ---------------*- C -*-===*\
 *
 * The C face of tilec/runtime.hpp, for host programs written in C or called through an FFI.
 * Functions return TILEC_SUCCESS or TILEC_ERROR; after an error, tilec_last_error() says what
 * went wrong (on the calling thread) and tilec_last_cuda_result() gives the CUresult of a failed
 * CUDA call (CUDA_SUCCESS for other errors).
 *
 * Launch arguments are tagged values (tilec_arg), checked against the kernel's parameters by the
 * rules of tilec::rt::packArguments.
 *
\*===----------------------------------------------------------------------===*/

#ifndef TILEC_RUNTIME_H
#define TILEC_RUNTIME_H

#include <cuda.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum tilec_status { TILEC_SUCCESS = 0, TILEC_ERROR = 1 } tilec_status;

typedef struct tilec_module tilec_module;
typedef struct tilec_kernel tilec_kernel;

typedef enum tilec_arg_kind {
  TILEC_ARG_POINTER, /* value.pointer: a device address, untyped */
  TILEC_ARG_I32,     /* value.i64 holds an int32_t */
  TILEC_ARG_I64,     /* value.i64 */
  TILEC_ARG_U32,     /* value.u64 holds a uint32_t */
  TILEC_ARG_U64,     /* value.u64 */
  TILEC_ARG_F32,     /* value.f32 */
  TILEC_ARG_F64,     /* value.f64 */
  TILEC_ARG_BOOL     /* value.i64: 0 or 1 */
} tilec_arg_kind;

typedef struct tilec_arg {
  tilec_arg_kind kind;
  union {
    CUdeviceptr pointer;
    int64_t i64;
    uint64_t u64;
    float f32;
    double f64;
  } value;
} tilec_arg;

static inline tilec_arg tilec_arg_pointer(CUdeviceptr pointer) {
  tilec_arg arg;
  arg.kind = TILEC_ARG_POINTER;
  arg.value.pointer = pointer;
  return arg;
}
static inline tilec_arg tilec_arg_i32(int32_t value) {
  tilec_arg arg;
  arg.kind = TILEC_ARG_I32;
  arg.value.i64 = value;
  return arg;
}
static inline tilec_arg tilec_arg_i64(int64_t value) {
  tilec_arg arg;
  arg.kind = TILEC_ARG_I64;
  arg.value.i64 = value;
  return arg;
}
static inline tilec_arg tilec_arg_u32(uint32_t value) {
  tilec_arg arg;
  arg.kind = TILEC_ARG_U32;
  arg.value.u64 = value;
  return arg;
}
static inline tilec_arg tilec_arg_u64(uint64_t value) {
  tilec_arg arg;
  arg.kind = TILEC_ARG_U64;
  arg.value.u64 = value;
  return arg;
}
static inline tilec_arg tilec_arg_f32(float value) {
  tilec_arg arg;
  arg.kind = TILEC_ARG_F32;
  arg.value.f32 = value;
  return arg;
}
static inline tilec_arg tilec_arg_f64(double value) {
  tilec_arg arg;
  arg.kind = TILEC_ARG_F64;
  arg.value.f64 = value;
  return arg;
}
static inline tilec_arg tilec_arg_bool(int value) {
  tilec_arg arg;
  arg.kind = TILEC_ARG_BOOL;
  arg.value.i64 = value != 0;
  return arg;
}

/* The message of the calling thread's last error ("" if none). Valid until its next call. */
const char *tilec_last_error(void);
/* The CUresult of the calling thread's last error, CUDA_SUCCESS if it was not a CUDA failure. */
CUresult tilec_last_cuda_result(void);

/* The number of CUDA devices in *count; 0 without a driver or a device (not an error). */
tilec_status tilec_device_count(int *count);

/* ---- Contexts, device memory, synchronization ------------------------------------------ */

/* A retained primary context of one device, made current on the calling thread (as
 * tilec::rt::PrimaryContext). Programs that use the CUDA runtime API need none: it makes the same
 * primary context current. */
typedef struct tilec_context tilec_context;

/* Initializes the driver, retains device_ordinal's primary context and makes it current. */
tilec_status tilec_context_create(int device_ordinal, tilec_context **context);
/* Releases the primary context (accepts NULL). Destroy modules and free memory first. */
void tilec_context_destroy(tilec_context *context);
/* Makes the context current on the calling thread (other threads that launch need this). */
tilec_status tilec_context_make_current(const tilec_context *context);
CUcontext tilec_context_handle(const tilec_context *context);
/* "NVIDIA H200 (sm_90)", NUL-terminated and cut to size bytes. */
tilec_status tilec_context_device_name(const tilec_context *context, char *name, size_t size);

/* Device memory in the current context. A size of 0 gives *pointer = 0 and succeeds. */
tilec_status tilec_mem_alloc(CUdeviceptr *pointer, size_t bytes);
/* Frees memory from tilec_mem_alloc; 0 is accepted and does nothing. */
tilec_status tilec_mem_free(CUdeviceptr pointer);
/* Synchronous copies of bytes between host and device memory (0 bytes: nothing to do). */
tilec_status tilec_memcpy_htod(CUdeviceptr destination, const void *source, size_t bytes);
tilec_status tilec_memcpy_dtoh(void *destination, CUdeviceptr source, size_t bytes);
/* Waits for all work of the current context; errors of earlier launches surface here. */
tilec_status tilec_synchronize(void);

/* ---- Modules and kernels ----------------------------------------------------------------- */

/* Loads PTX and its metadata into the current CUDA context. */
tilec_status tilec_module_load_file(const char *ptx_path, const char *metadata_path,
                                    tilec_module **module);
/* Both texts NUL-terminated. */
tilec_status tilec_module_load_data(const char *ptx, const char *metadata_json,
                                    tilec_module **module);
/* Accepts NULL. Kernels obtained from the module stay usable until they are destroyed too. */
void tilec_module_destroy(tilec_module *module);

tilec_status tilec_module_get_kernel(const tilec_module *module, const char *name,
                                     tilec_kernel **kernel);
void tilec_kernel_destroy(tilec_kernel *kernel);
/* 32 * num_warps. */
unsigned tilec_kernel_block_size(const tilec_kernel *kernel);
/* The integer value of one of the kernel's constexprs (for grids: BLOCK_SIZE). */
tilec_status tilec_kernel_constexpr_int(const tilec_kernel *kernel, const char *name,
                                        int64_t *value);
/* Checks the arguments and launches grid_x * grid_y * grid_z blocks on stream. */
tilec_status tilec_kernel_launch(const tilec_kernel *kernel, unsigned grid_x, unsigned grid_y,
                                 unsigned grid_z, CUstream stream, const tilec_arg *args,
                                 size_t arg_count);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* TILEC_RUNTIME_H */
