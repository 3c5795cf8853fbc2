/*===- CApiTest.c - The C API, compiled as C, without a GPU ----------------===*\
 *
 * Runs with TILEC_CUDA_DRIVER naming a library that does not exist, so there is no driver:
 * what is checked here is the C face itself (status codes, messages, NULL handling) and that
 * metadata errors come before the driver is needed.
 *
\*===----------------------------------------------------------------------===*/

#include "tilec/runtime.h"

#include <stdio.h>
#include <string.h>

static int failures = 0;

#define EXPECT(condition)                                                                          \
  do {                                                                                             \
    if (!(condition)) {                                                                            \
      fprintf(stderr, "CApiTest.c:%d: FAILED: %s\n", __LINE__, #condition);                        \
      ++failures;                                                                                  \
    }                                                                                              \
  } while (0)

#define EXPECT_ERROR_CONTAINS(needle)                                                              \
  do {                                                                                             \
    printf("  error as expected: %s\n", tilec_last_error());                                       \
    EXPECT(strstr(tilec_last_error(), (needle)) != NULL);                                          \
  } while (0)

int main(void) {
  tilec_module *module = (tilec_module *)&failures; /* must be reset to NULL on failure */
  tilec_kernel *kernel = NULL;
  int count = -1;

  EXPECT(strcmp(tilec_last_error(), "") == 0);

  EXPECT(tilec_device_count(&count) == TILEC_SUCCESS);
  EXPECT(count == 0);
  EXPECT(tilec_device_count(NULL) == TILEC_ERROR);
  EXPECT_ERROR_CONTAINS("tilec_device_count: count is NULL");

  /* Metadata errors, with their position, before the missing driver matters. */
  EXPECT(tilec_module_load_data(".version 8.0", "{\"schema\": 1}", &module) == TILEC_ERROR);
  EXPECT(module == NULL);
  EXPECT_ERROR_CONTAINS("<metadata>:1:12: schema must be a string, not a number");
  EXPECT(tilec_last_cuda_result() == CUDA_SUCCESS);

  EXPECT(tilec_module_load_file("/nonexistent/k.ptx", "/nonexistent/k.json", &module) ==
         TILEC_ERROR);
  EXPECT_ERROR_CONTAINS("cannot open metadata file '/nonexistent/k.json'");

  EXPECT(tilec_module_load_data(
             ".version 8.0",
             "{\"schema\": \"tilec-metadata\", \"version\": 1, \"target\": \"sm_90\", "
             "\"kernels\": []}",
             &module) == TILEC_ERROR);
  EXPECT_ERROR_CONTAINS("cannot open the CUDA driver library");

  EXPECT(tilec_module_load_data(NULL, "{}", &module) == TILEC_ERROR);
  EXPECT_ERROR_CONTAINS("tilec_module_load_data: ptx is NULL");
  EXPECT(tilec_module_get_kernel(NULL, "k", &kernel) == TILEC_ERROR);
  EXPECT_ERROR_CONTAINS("tilec_module_get_kernel: module is NULL");
  EXPECT(tilec_kernel_launch(NULL, 1, 1, 1, NULL, NULL, 0) == TILEC_ERROR);
  EXPECT_ERROR_CONTAINS("tilec_kernel_launch: kernel is NULL");
  EXPECT(tilec_kernel_block_size(NULL) == 0);

  /* Contexts and memory: without a driver each says why; NULLs are named; no-ops succeed. */
  {
    tilec_context *context = (tilec_context *)&failures; /* must be reset to NULL on failure */
    CUdeviceptr pointer = 1;
    char name[64];
    float host[4] = {0, 0, 0, 0};

    EXPECT(tilec_context_create(0, &context) == TILEC_ERROR);
    EXPECT(context == NULL);
    EXPECT_ERROR_CONTAINS("cannot open the CUDA driver library");
    EXPECT(tilec_context_create(0, NULL) == TILEC_ERROR);
    EXPECT_ERROR_CONTAINS("tilec_context_create: context is NULL");
    EXPECT(tilec_context_make_current(NULL) == TILEC_ERROR);
    EXPECT_ERROR_CONTAINS("tilec_context_make_current: context is NULL");
    EXPECT(tilec_context_device_name(NULL, name, sizeof name) == TILEC_ERROR);
    EXPECT_ERROR_CONTAINS("tilec_context_device_name: context is NULL");
    EXPECT(tilec_context_handle(NULL) == NULL);
    tilec_context_destroy(NULL);

    EXPECT(tilec_mem_alloc(&pointer, 1024) == TILEC_ERROR);
    EXPECT(pointer == 0);
    EXPECT_ERROR_CONTAINS("cannot open the CUDA driver library");
    EXPECT(tilec_mem_alloc(NULL, 1024) == TILEC_ERROR);
    EXPECT_ERROR_CONTAINS("tilec_mem_alloc: pointer is NULL");
    pointer = 1;
    EXPECT(tilec_mem_alloc(&pointer, 0) == TILEC_SUCCESS);
    EXPECT(pointer == 0);
    EXPECT(tilec_mem_free(0) == TILEC_SUCCESS);
    EXPECT(tilec_mem_free((CUdeviceptr)0x1000) == TILEC_ERROR);
    EXPECT_ERROR_CONTAINS("cannot open the CUDA driver library");

    EXPECT(tilec_memcpy_htod((CUdeviceptr)0x1000, host, sizeof host) == TILEC_ERROR);
    EXPECT_ERROR_CONTAINS("cannot open the CUDA driver library");
    EXPECT(tilec_memcpy_htod(0, host, sizeof host) == TILEC_ERROR);
    EXPECT_ERROR_CONTAINS("tilec_memcpy_htod: destination is NULL");
    EXPECT(tilec_memcpy_dtoh(NULL, (CUdeviceptr)0x1000, sizeof host) == TILEC_ERROR);
    EXPECT_ERROR_CONTAINS("tilec_memcpy_dtoh: destination is NULL");
    EXPECT(tilec_memcpy_dtoh(host, 0, sizeof host) == TILEC_ERROR);
    EXPECT_ERROR_CONTAINS("tilec_memcpy_dtoh: source is NULL");
    EXPECT(tilec_memcpy_htod(0, NULL, 0) == TILEC_SUCCESS);
    EXPECT(tilec_memcpy_dtoh(NULL, 0, 0) == TILEC_SUCCESS);

    EXPECT(tilec_synchronize() == TILEC_ERROR);
    EXPECT_ERROR_CONTAINS("cannot open the CUDA driver library");
    EXPECT(tilec_kernel_constexpr_int(NULL, "BLOCK_SIZE", NULL) == TILEC_ERROR);
    EXPECT_ERROR_CONTAINS("tilec_kernel_constexpr_int: kernel is NULL");
  }

  /* A success clears the last error. */
  EXPECT(tilec_device_count(&count) == TILEC_SUCCESS);
  EXPECT(strcmp(tilec_last_error(), "") == 0);

  tilec_module_destroy(NULL);
  tilec_kernel_destroy(NULL);

  {
    tilec_arg arg = tilec_arg_i32(-3);
    EXPECT(arg.kind == TILEC_ARG_I32 && arg.value.i64 == -3);
    arg = tilec_arg_bool(7);
    EXPECT(arg.kind == TILEC_ARG_BOOL && arg.value.i64 == 1);
    arg = tilec_arg_f32(0.5f);
    EXPECT(arg.kind == TILEC_ARG_F32 && arg.value.f32 == 0.5f);
    arg = tilec_arg_pointer((CUdeviceptr)0x1000);
    EXPECT(arg.kind == TILEC_ARG_POINTER && arg.value.pointer == 0x1000);
  }

  printf("c_api: %d failure(s)\n", failures);
  return failures ? 1 : 0;
}
