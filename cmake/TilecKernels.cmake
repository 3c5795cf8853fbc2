# tilec_add_kernels(): compile Triton kernels (.tl) with tilec at build time into C++ headers with
# the PTX embedded and one typed launcher per kernel (tilec --emit header), and link the runtime.
#
#   tilec_add_kernels(<target>
#     SOURCES <file.tl>...              kernel sources
#     [KERNELS <name>... SIGNATURES <signature>...]
#                                       which kernels, one Triton AOT signature each (one SOURCE
#                                       only); without them, every kernel of each source that has
#                                       a `# tilec: -s "..."` comment
#     [ARCH sm_90a] [NUM_WARPS <n>] [NUM_STAGES <n>]
#     [DEFINES NAME=VALUE...]           constexpr bindings (tilec -D)
#     [INCLUDE_DIRS <dir>...]           where `import helpers` looks after the source's folder
#                                       (tilec -I)
#     [JOBS <n>]                        threads per tilec process (tilec -j); default
#                                       TILEC_KERNEL_JOBS, 1 (see below)
#     [OPTIONS <flag>...]               any other tilec flags (--no-fp-fusion...)
#     [DEPENDS <file>...]               more files the kernels depend on
#     [PREBUILT_DIR <dir>])             take <dir>/<stem>.h instead of compiling (see below)
#
# For each source <dir>/<stem>.tl the target gets the generated header <stem>.tilec.h on its
# include path:  #include "vector_add.tilec.h"  ...  tilec::add_kernel(stream, grid, x, y, out, n);
#
# Each header is rebuilt when its source, a file the source imports (`import helpers`,
# `from .ops import f`), a DEPENDS file or the tilec executable changes (the standard library is
# embedded in tilec), so editing a .tl recompiles only the kernel sources that are or import it
# and the files that include their headers. The imports are found by tilec itself, which writes
# a depfile (-MF) that the Ninja and Makefile generators read (DEPFILE); other generators see
# only the source and DEPENDS.
#
# The build tool already runs one tilec per source in parallel (ninja -jN, make -jN), and a tilec
# left to itself starts one thread per hardware thread for the variants of an autotuned kernel, so
# several at once would oversubscribe the machine. Each tilec therefore gets one thread unless
# JOBS (or the cache variable TILEC_KERNEL_JOBS) says otherwise: raise it for a build with a few
# sources holding many autotune variants. The generated headers do not depend on it.
#
# Without a compiler (a package installed from a build with -DTILEC_BUILD_COMPILER=OFF, as on GPU
# machines without LLVM), the headers come from a directory of prebuilt ones generated elsewhere
# with the same flags: PREBUILT_DIR, or the cache variable TILEC_PREBUILT_KERNELS_DIR. A prebuilt
# directory, when given, is used even where the compiler exists.
#
# The compiler is the imported target tilec::tilec (find_package(Tilec)) or, in tilec's own tree
# and through add_subdirectory, the alias of the tilec target; the runtime is tilec::runtime.

include_guard(GLOBAL)

set(TILEC_PREBUILT_KERNELS_DIR "" CACHE PATH
  "Directory of prebuilt <stem>.h launcher headers that tilec_add_kernels uses instead of compiling")
set(TILEC_KERNEL_JOBS 1 CACHE STRING
  "Threads each tilec process of tilec_add_kernels uses (tilec -j), unless the call gives JOBS")

function(tilec_add_kernels target)
  cmake_parse_arguments(PARSE_ARGV 1 ARG ""
    "ARCH;NUM_WARPS;NUM_STAGES;JOBS;PREBUILT_DIR"
    "SOURCES;KERNELS;SIGNATURES;DEFINES;OPTIONS;DEPENDS;INCLUDE_DIRS")
  if(ARG_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "tilec_add_kernels(${target}): unknown arguments ${ARG_UNPARSED_ARGUMENTS}")
  endif()
  if(NOT TARGET ${target})
    message(FATAL_ERROR "tilec_add_kernels: no target '${target}' (create it first)")
  endif()
  if(NOT ARG_SOURCES)
    message(FATAL_ERROR "tilec_add_kernels(${target}): no SOURCES")
  endif()
  list(LENGTH ARG_KERNELS kernelCount)
  list(LENGTH ARG_SIGNATURES signatureCount)
  if(NOT kernelCount EQUAL signatureCount)
    message(FATAL_ERROR "tilec_add_kernels(${target}): ${kernelCount} KERNELS but "
                        "${signatureCount} SIGNATURES; give one signature per kernel")
  endif()
  list(LENGTH ARG_SOURCES sourceCount)
  if(kernelCount GREATER 0 AND sourceCount GREATER 1)
    message(FATAL_ERROR "tilec_add_kernels(${target}): KERNELS name kernels of one source; "
                        "call tilec_add_kernels once per source")
  endif()

  set(prebuilt "${ARG_PREBUILT_DIR}")
  if(NOT prebuilt)
    set(prebuilt "${TILEC_PREBUILT_KERNELS_DIR}")
  endif()
  if(NOT prebuilt AND NOT TARGET tilec::tilec)
    message(FATAL_ERROR "tilec_add_kernels(${target}): no tilec compiler (this tilec package was "
                        "built without it) and no prebuilt headers: set PREBUILT_DIR or "
                        "TILEC_PREBUILT_KERNELS_DIR to a directory of headers made by "
                        "`tilec --emit header`")
  endif()
  if(NOT TARGET tilec::runtime)
    message(FATAL_ERROR "tilec_add_kernels(${target}): no tilec runtime (tilec was built without "
                        "a CUDA toolkit)")
  endif()

  set(jobs "${ARG_JOBS}")
  if(NOT jobs)
    set(jobs "${TILEC_KERNEL_JOBS}")
  endif()
  if(NOT jobs MATCHES "^[1-9][0-9]*$")
    message(FATAL_ERROR "tilec_add_kernels(${target}): JOBS (or TILEC_KERNEL_JOBS) is '${jobs}'; "
                        "give a number of threads, 1 or more")
  endif()

  # Flags common to every source, in a fixed order (the headers are deterministic).
  set(flags -j ${jobs})
  if(ARG_ARCH)
    list(APPEND flags --arch ${ARG_ARCH})
  endif()
  if(ARG_NUM_WARPS)
    list(APPEND flags --num-warps ${ARG_NUM_WARPS})
  endif()
  if(ARG_NUM_STAGES)
    list(APPEND flags --num-stages ${ARG_NUM_STAGES})
  endif()
  foreach(define IN LISTS ARG_DEFINES)
    list(APPEND flags -D ${define})
  endforeach()
  foreach(dir IN LISTS ARG_INCLUDE_DIRS)
    get_filename_component(dir "${dir}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
    list(APPEND flags -I "${dir}")
  endforeach()
  if(kernelCount GREATER 0)
    math(EXPR last "${kernelCount} - 1")
    foreach(index RANGE ${last})
      list(GET ARG_KERNELS ${index} kernel)
      list(GET ARG_SIGNATURES ${index} signature)
      list(APPEND flags -k ${kernel} -s ${signature})
    endforeach()
  endif()
  list(APPEND flags ${ARG_OPTIONS})

  set(outputDir "${CMAKE_CURRENT_BINARY_DIR}/tilec_kernels/${target}")
  file(MAKE_DIRECTORY "${outputDir}")
  set(headers)
  foreach(source IN LISTS ARG_SOURCES)
    get_filename_component(sourcePath "${source}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
    get_filename_component(stem "${source}" NAME_WE)
    set(header "${outputDir}/${stem}.tilec.h")
    if(header IN_LIST headers)
      message(FATAL_ERROR "tilec_add_kernels(${target}): two sources named ${stem}")
    endif()
    if(prebuilt)
      get_filename_component(prebuiltHeader "${prebuilt}/${stem}.h" ABSOLUTE)
      if(NOT EXISTS "${prebuiltHeader}")
        message(FATAL_ERROR "tilec_add_kernels(${target}): no prebuilt header ${prebuiltHeader} "
                            "for ${source}")
      endif()
      add_custom_command(
        OUTPUT "${header}"
        COMMAND ${CMAKE_COMMAND} -E copy "${prebuiltHeader}" "${header}"
        DEPENDS "${prebuiltHeader}"
        COMMENT "tilec: prebuilt ${stem}.h"
        VERBATIM)
    elseif(CMAKE_GENERATOR MATCHES "Ninja|Makefiles")
      # tilec lists the files it read (the source and the modules it imports) in a depfile.
      add_custom_command(
        OUTPUT "${header}"
        COMMAND tilec::tilec "${sourcePath}" --emit header ${flags} -o "${header}"
                -MF "${header}.d"
        DEPENDS "${sourcePath}" tilec::tilec ${ARG_DEPENDS}
        DEPFILE "${header}.d"
        COMMENT "tilec: compiling ${source}"
        VERBATIM)
    else()
      add_custom_command(
        OUTPUT "${header}"
        COMMAND tilec::tilec "${sourcePath}" --emit header ${flags} -o "${header}"
        DEPENDS "${sourcePath}" tilec::tilec ${ARG_DEPENDS}
        COMMENT "tilec: compiling ${source}"
        VERBATIM)
    endif()
    list(APPEND headers "${header}")
  endforeach()

  target_sources(${target} PRIVATE ${headers})
  target_include_directories(${target} PRIVATE "${outputDir}")
  target_link_libraries(${target} PRIVATE tilec::runtime)
endfunction()
