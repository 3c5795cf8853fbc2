# Installs tilec into a fresh prefix and builds tests/cmake/consumer against it, as a user would.
#   cmake -DTILEC_BUILD_DIR=... -DWORK_DIR=... -DCONSUMER_DIR=... -DKERNELS_DIR=...
#         -DGENERATOR=... [-DCXX_COMPILER=...] [-DCUDA_ROOT=...] [-DPREBUILT_DIR=...]
#         -P consumer_test.cmake
# Checks, in order:
#  1. `cmake --install` puts the config package, the runtime and (with a compiler) tilec in the
#     prefix;
#  2. the consumer configures with find_package(Tilec) and builds (tilec_add_kernels compiling
#     its .tl files, or taking PREBUILT_DIR's headers where there is no compiler);
#  3. a second build does nothing, and after editing vector_add.tl only its header and the file
#     that includes it are rebuilt; after editing an imported helper (multifile/common.tl,
#     mid.tl), exactly the kernels that import it, directly or not (Ninja only, and only when
#     compiling);
#  4. the launcher's typed parameters: compile_fail_0 (a correct use) compiles, and each wrong use
#     fails with an error that names the parameter type it breaks.
# The executables are run by a separate test (gpu.cmake.consumer).
cmake_minimum_required(VERSION 3.20)

foreach(var TILEC_BUILD_DIR WORK_DIR CONSUMER_DIR KERNELS_DIR GENERATOR)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "consumer_test.cmake: -D${var}=... is required")
  endif()
endforeach()

# run(<what> COMMAND...): runs the command, keeps its output in `output`, fails the test on error.
function(run what)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  set(output "${out}" PARENT_SCOPE)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "consumer test: ${what} failed (${rc}):\n${out}")
  endif()
endfunction()

set(prefix "${WORK_DIR}/prefix")
set(build "${WORK_DIR}/build")
set(kernels "${WORK_DIR}/kernels")
file(REMOVE_RECURSE "${WORK_DIR}")
file(MAKE_DIRECTORY "${kernels}")

# 1. Install.
run("cmake --install" ${CMAKE_COMMAND} --install "${TILEC_BUILD_DIR}" --prefix "${prefix}")
file(GLOB_RECURSE config "${prefix}/*/TilecConfig.cmake")
file(GLOB_RECURSE version "${prefix}/*/TilecConfigVersion.cmake")
file(GLOB_RECURSE targets "${prefix}/*/TilecTargets.cmake")
foreach(required config version targets)
  if(NOT ${required})
    message(FATAL_ERROR "consumer test: the install has no Tilec${required}.cmake:\n${output}")
  endif()
endforeach()
if(NOT EXISTS "${prefix}/include/tilec/runtime.hpp" OR NOT EXISTS "${prefix}/include/tilec/runtime.h")
  message(FATAL_ERROR "consumer test: the install has no runtime headers")
endif()
if(NOT PREBUILT_DIR AND NOT EXISTS "${prefix}/bin/tilec")
  message(FATAL_ERROR "consumer test: the install has no bin/tilec")
endif()

# 2. Configure and build from the prefix alone (copies of the kernels, so step 3 can edit them).
file(COPY "${KERNELS_DIR}/vector_add.tl" "${KERNELS_DIR}/copy.tl"
     "${KERNELS_DIR}/vector_add_autotune.tl" "${KERNELS_DIR}/tiled_matmul.tl" DESTINATION "${kernels}")
file(GLOB multifile "${CONSUMER_DIR}/multifile/*.tl")
file(COPY ${multifile} DESTINATION "${kernels}")
set(configure ${CMAKE_COMMAND} -S "${CONSUMER_DIR}" -B "${build}" -G "${GENERATOR}"
    -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH=${prefix} -DTILEC_TEST_KERNELS_DIR=${kernels}
    -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF)
if(CXX_COMPILER)
  list(APPEND configure -DCMAKE_CXX_COMPILER=${CXX_COMPILER})
endif()
if(CUDA_ROOT)
  list(APPEND configure -DCUDAToolkit_ROOT=${CUDA_ROOT})
endif()
if(PREBUILT_DIR)
  list(APPEND configure -DTILEC_PREBUILT_KERNELS_DIR=${PREBUILT_DIR})
endif()
run("configuring the consumer" ${configure})
if(NOT output MATCHES "consumer: Tilec [0-9.]+ from ${prefix}")
  message(FATAL_ERROR "consumer test: find_package did not find the installed Tilec:\n${output}")
endif()
# Each tilec gets one thread (the build tool runs several), unless the call gives JOBS.
if(GENERATOR STREQUAL "Ninja" AND NOT PREBUILT_DIR)
  file(READ "${build}/build.ninja" ninjaFile)
  if(NOT ninjaFile MATCHES "vector_add\\.tl --emit header -j 1 "
     OR NOT ninjaFile MATCHES "tiled_matmul\\.tl --emit header -j 2 ")
    message(FATAL_ERROR "consumer test: tilec_add_kernels did not pass -j 1 by default and "
                        "-j 2 for JOBS 2 (see build.ninja in ${build})")
  endif()
endif()
run("building the consumer" ${CMAKE_COMMAND} --build "${build}")
foreach(header consumer_vector_add/vector_add.tilec.h consumer_copy/copy.tilec.h
               consumer_matmul/tiled_matmul.tilec.h consumer_twofile/twofile.tilec.h
               consumer_threefile/threefile.tilec.h)
  if(NOT EXISTS "${build}/tilec_kernels/${header}")
    message(FATAL_ERROR "consumer test: no generated ${header}")
  endif()
endforeach()

# 3. Incremental builds.
if(GENERATOR STREQUAL "Ninja" AND NOT PREBUILT_DIR)
  run("rebuilding the consumer" ${CMAKE_COMMAND} --build "${build}")
  if(NOT output MATCHES "no work to do")
    message(FATAL_ERROR "consumer test: a second build was not empty:\n${output}")
  endif()
  file(APPEND "${kernels}/vector_add.tl" "\n# edited by the consumer test\n")
  run("rebuilding after editing vector_add.tl" ${CMAKE_COMMAND} --build "${build}" -- -v)
  if(NOT output MATCHES "vector_add\\.tl" OR NOT output MATCHES "vector_add_main\\.cpp")
    message(FATAL_ERROR "consumer test: editing vector_add.tl did not rebuild its header and "
                        "vector_add_main.cpp:\n${output}")
  endif()
  if(output MATCHES "copy\\.tl" OR output MATCHES "copy_main\\.cpp")
    message(FATAL_ERROR "consumer test: editing vector_add.tl rebuilt the copy kernel's target:\n"
                        "${output}")
  endif()

  # Helpers: the kernels are rebuilt through tilec's depfiles, which list what each imports.
  # common.tl is imported by twofile.tl and (through mid.tl) threefile.tl; mid.tl by threefile.tl.
  file(APPEND "${kernels}/common.tl" "\n# edited by the consumer test\n")
  run("rebuilding after editing common.tl" ${CMAKE_COMMAND} --build "${build}" -- -v)
  if(NOT output MATCHES "twofile\\.tl" OR NOT output MATCHES "threefile\\.tl")
    message(FATAL_ERROR "consumer test: editing common.tl did not rebuild both kernels that "
                        "import it (twofile.tl, threefile.tl through mid.tl):\n${output}")
  endif()
  if(output MATCHES "vector_add\\.tl" OR output MATCHES "copy\\.tl")
    message(FATAL_ERROR "consumer test: editing common.tl rebuilt kernels that do not import "
                        "it:\n${output}")
  endif()
  file(APPEND "${kernels}/mid.tl" "\n# edited by the consumer test\n")
  run("rebuilding after editing mid.tl" ${CMAKE_COMMAND} --build "${build}" -- -v)
  if(NOT output MATCHES "threefile\\.tl" OR NOT output MATCHES "multifile_main\\.cpp")
    message(FATAL_ERROR "consumer test: editing mid.tl did not rebuild threefile.tl's header "
                        "and what includes it:\n${output}")
  endif()
  if(output MATCHES "twofile\\.tl")
    message(FATAL_ERROR "consumer test: editing mid.tl rebuilt twofile.tl, which does not "
                        "import it:\n${output}")
  endif()
  run("building once more" ${CMAKE_COMMAND} --build "${build}")
  if(NOT output MATCHES "no work to do")
    message(FATAL_ERROR "consumer test: a build after the helper edits was not empty:\n${output}")
  endif()
endif()

# 4. The typed launcher at compile time. Case 0 is the correct use.
run("compiling a correct use of the launcher (compile_fail_0)"
    ${CMAKE_COMMAND} --build "${build}" --target compile_fail_0)
set(expected_1 "Ptr<float>")  # DevicePtr<double> for *fp32
set(expected_2 "Ptr<float>")  # CUdeviceptr for *fp32
set(expected_3 "Scalar<int>") # float for i32
set(expected_4 "too few arguments|candidate expects 6 arguments")
set(expected_5 "Ptr<float>")  # int* for *fp32
foreach(case RANGE 1 5)
  execute_process(COMMAND ${CMAKE_COMMAND} --build "${build}" --target compile_fail_${case}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  if(rc EQUAL 0)
    message(FATAL_ERROR "consumer test: compile_fail_${case} compiled; the launcher's types "
                        "should have rejected it")
  endif()
  if(NOT out MATCHES "error" OR NOT out MATCHES "${expected_${case}}")
    message(FATAL_ERROR "consumer test: compile_fail_${case} failed, but not with an error "
                        "naming ${expected_${case}}:\n${out}")
  endif()
endforeach()
message(STATUS "consumer test: installed, configured, built, incremental and compile-fail checks OK")
