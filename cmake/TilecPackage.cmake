# Makes tilec usable from other CMake projects, in both ways 1.4 of the design names:
#  - add_subdirectory(tilec): tilec_add_kernels() and the targets tilec::tilec and tilec::runtime
#    are defined here, in the including project's scope;
#  - find_package(Tilec) after `cmake --install`: the rules below install the compiler (installed
#    by src/driver), the runtime with its headers (runtime/), an export set of the runtime,
#    TilecConfig.cmake, its version file, and TilecKernels.cmake into <prefix>/lib/cmake/Tilec.

include(CMakePackageConfigHelpers)
include(TilecKernels)

if(TARGET tilec AND NOT TARGET tilec::tilec)
  add_executable(tilec::tilec ALIAS tilec)
endif()

set(TILEC_INSTALL_CMAKEDIR "${CMAKE_INSTALL_LIBDIR}/cmake/Tilec" CACHE STRING
  "Where to install TilecConfig.cmake, relative to the prefix")
set(TILEC_INSTALL_BINDIR "${CMAKE_INSTALL_BINDIR}")

if(TARGET tilec_runtime)
  # Exported as tilec::runtime, the name the alias has in this tree.
  set_target_properties(tilec_runtime PROPERTIES EXPORT_NAME runtime)
  install(EXPORT TilecTargets NAMESPACE tilec:: DESTINATION "${TILEC_INSTALL_CMAKEDIR}"
          FILE TilecTargets.cmake)
endif()

configure_package_config_file(
  "${CMAKE_CURRENT_LIST_DIR}/TilecConfig.cmake.in"
  "${PROJECT_BINARY_DIR}/cmake/TilecConfig.cmake"
  INSTALL_DESTINATION "${TILEC_INSTALL_CMAKEDIR}"
  PATH_VARS TILEC_INSTALL_BINDIR)
# 0.x: minor versions may break; from 1.0 on, the same major version is compatible.
if(PROJECT_VERSION_MAJOR EQUAL 0)
  set(compatibility SameMinorVersion)
else()
  set(compatibility SameMajorVersion)
endif()
write_basic_package_version_file("${PROJECT_BINARY_DIR}/cmake/TilecConfigVersion.cmake"
  VERSION ${PROJECT_VERSION} COMPATIBILITY ${compatibility})
install(FILES
  "${PROJECT_BINARY_DIR}/cmake/TilecConfig.cmake"
  "${PROJECT_BINARY_DIR}/cmake/TilecConfigVersion.cmake"
  "${CMAKE_CURRENT_LIST_DIR}/TilecKernels.cmake"
  DESTINATION "${TILEC_INSTALL_CMAKEDIR}")
