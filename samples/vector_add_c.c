/*===- vector_add_c.c - samples/vector_add.tl's add_kernel from plain C ----===*\
 *
 *   vector_add_c [-n N] [vector_add.ptx vector_add.json]
 *
 * The vector add of vector_add.cpp through the C API only (tilec/runtime.h): a primary context,
 * device memory, copies, the launch with tagged arguments, synchronization. Compares with the CPU
 * and checks that the last block writes nothing past element n. Prints one line,
 * "vector_add_c: n=1000003 max_abs_err=0 OK", and exits 0; 1 on a wrong result or an error; 77
 * (skipped) when there is no GPU or no PTX to run.
 *
\*===----------------------------------------------------------------------===*/

#include "tilec/runtime.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef TILEC_SAMPLE_PTX
#define TILEC_SAMPLE_PTX ""
#endif
#ifndef TILEC_SAMPLE_METADATA
#define TILEC_SAMPLE_METADATA ""
#endif

#define EXIT_SKIPPED 77

/* Reports the failed call and tilec's message, then goes to the cleanup. */
#define CHECK(call)                                                                                \
  do {                                                                                             \
    if ((call) != TILEC_SUCCESS) {                                                                 \
      fprintf(stderr, "vector_add_c: %s failed: %s (CUresult %d)\n", #call, tilec_last_error(),   \
              (int)tilec_last_cuda_result());                                                      \
      goto done;                                                                                   \
    }                                                                                              \
  } while (0)

/* A deterministic generator in [-1, 1): the sample must not depend on the C library's rand. */
static float next_value(uint32_t *state) {
  *state = *state * 1664525u + 1013904223u;
  return (float)(*state >> 8) / (float)(1u << 23) - 1.0f;
}

static int run(size_t n, const char *ptx_path, const char *metadata_path) {
  int status = 1;
  tilec_context *context = NULL;
  tilec_module *module = NULL;
  tilec_kernel *kernel = NULL;
  CUdeviceptr dx = 0, dy = 0, dout = 0;
  float *x = NULL, *y = NULL, *out = NULL;
  int64_t block_size = 0;
  size_t guard, i, mismatches = 0, guard_writes = 0;
  const uint32_t sentinel_bits = 0x7fc0dead; /* a NaN no addition produces */
  double max_abs_error = 0;
  uint32_t seed = 20240601u;
  char device[128];
  unsigned blocks;
  tilec_arg args[4];

  CHECK(tilec_context_create(0, &context));
  CHECK(tilec_context_device_name(context, device, sizeof device));
  CHECK(tilec_module_load_file(ptx_path, metadata_path, &module));
  CHECK(tilec_module_get_kernel(module, "add_kernel", &kernel));
  CHECK(tilec_kernel_constexpr_int(kernel, "BLOCK_SIZE", &block_size));

  guard = (size_t)block_size;
  x = malloc(n * sizeof *x);
  y = malloc(n * sizeof *y);
  out = malloc((n + guard) * sizeof *out);
  if (!x || !y || !out) {
    fprintf(stderr, "vector_add_c: out of host memory\n");
    goto done;
  }
  for (i = 0; i < n; ++i) {
    x[i] = next_value(&seed);
    y[i] = next_value(&seed);
  }
  for (i = 0; i < n + guard; ++i)
    memcpy(&out[i], &sentinel_bits, sizeof sentinel_bits);

  CHECK(tilec_mem_alloc(&dx, n * sizeof *x));
  CHECK(tilec_mem_alloc(&dy, n * sizeof *y));
  CHECK(tilec_mem_alloc(&dout, (n + guard) * sizeof *out));
  CHECK(tilec_memcpy_htod(dx, x, n * sizeof *x));
  CHECK(tilec_memcpy_htod(dy, y, n * sizeof *y));
  CHECK(tilec_memcpy_htod(dout, out, (n + guard) * sizeof *out));

  args[0] = tilec_arg_pointer(dx);
  args[1] = tilec_arg_pointer(dy);
  args[2] = tilec_arg_pointer(dout);
  args[3] = tilec_arg_i32((int32_t)n);
  blocks = (unsigned)((n + guard - 1) / guard); /* cdiv(n, BLOCK_SIZE) */
  CHECK(tilec_kernel_launch(kernel, blocks, 1, 1, NULL, args, 4));
  CHECK(tilec_synchronize());
  CHECK(tilec_memcpy_dtoh(out, dout, (n + guard) * sizeof *out));

  for (i = 0; i < n; ++i) {
    double error = fabs((double)out[i] - (double)(x[i] + y[i]));
    if (error != 0 || isnan(error))
      ++mismatches;
    if (!isnan(max_abs_error) && (isnan(error) || error > max_abs_error))
      max_abs_error = error;
  }
  for (i = n; i < n + guard; ++i)
    if (memcmp(&out[i], &sentinel_bits, sizeof sentinel_bits) != 0)
      ++guard_writes;

  status = mismatches == 0 && guard_writes == 0 ? 0 : 1;
  printf("vector_add_c: n=%zu block=%lld on %s max_abs_err=%g %s", n, (long long)block_size,
         device, max_abs_error, status == 0 ? "OK" : "FAILED");
  if (mismatches)
    printf(" (%zu wrong elements)", mismatches);
  if (guard_writes)
    printf(" (%zu writes past element n)", guard_writes);
  printf("\n");

done:
  /* Everything is released in reverse order; each call accepts what was never made. */
  if (tilec_mem_free(dout) != TILEC_SUCCESS || tilec_mem_free(dy) != TILEC_SUCCESS ||
      tilec_mem_free(dx) != TILEC_SUCCESS) {
    fprintf(stderr, "vector_add_c: tilec_mem_free failed: %s\n", tilec_last_error());
    status = 1;
  }
  free(out);
  free(y);
  free(x);
  tilec_kernel_destroy(kernel);
  tilec_module_destroy(module);
  tilec_context_destroy(context);
  if (status != 0 && mismatches == 0 && guard_writes == 0)
    printf("vector_add_c: n=%zu FAILED\n", n);
  return status;
}

int main(int argc, char **argv) {
  size_t n = 1000003; /* not a multiple of any block size */
  const char *paths[2] = {NULL, NULL};
  int path_count = 0, i, count = 0;

  for (i = 1; i < argc; ++i) {
    if (strcmp(argv[i], "-n") == 0 && i + 1 < argc) {
      char *end = NULL;
      unsigned long long value = strtoull(argv[++i], &end, 10);
      if (*end || value == 0 || value > INT32_MAX) /* n_elements is an i32 */
        goto usage;
      n = (size_t)value;
    } else if (argv[i][0] == '-' || path_count == 2) {
      goto usage;
    } else {
      paths[path_count++] = argv[i];
    }
  }
  if (path_count == 1)
    goto usage;
  if (path_count == 0 && *TILEC_SAMPLE_PTX) {
    paths[0] = TILEC_SAMPLE_PTX;
    paths[1] = TILEC_SAMPLE_METADATA;
  }
  if (!paths[0]) {
    printf("vector_add_c: SKIPPED (no PTX: this build has neither the compiler nor "
           "-DTILEC_PREBUILT_PTX_DIR; pass vector_add.ptx vector_add.json)\n");
    return EXIT_SKIPPED;
  }
  if (tilec_device_count(&count) != TILEC_SUCCESS) {
    printf("vector_add_c: FAILED: %s\n", tilec_last_error());
    return 1;
  }
  if (count == 0) {
    printf("vector_add_c: SKIPPED (no GPU)\n");
    return EXIT_SKIPPED;
  }
  return run(n, paths[0], paths[1]);

usage:
  fprintf(stderr, "usage: %s [-n N] [vector_add.ptx vector_add.json]\n", argv[0]);
  return 2;
}
