# cmake -DTILEC=... -DPTXAS=... -DSOURCE=k.tl -DARCH=sm_90a -DPTX=out.ptx -P CheckPtx.cmake
# Compiles SOURCE for ARCH with tilec and assembles the PTX with ptxas; exits 77 (skipped) when
# there is no ptxas.
if(NOT PTXAS OR NOT EXISTS "${PTXAS}")
  message("ptxas not found (no CUDA toolkit): skipped")
  cmake_language(EXIT 77)
endif()
execute_process(COMMAND "${TILEC}" "${SOURCE}" --arch ${ARCH} -o "${PTX}" RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "tilec failed on ${SOURCE} for ${ARCH}")
endif()
execute_process(COMMAND "${PTXAS}" -arch=${ARCH} "${PTX}" -o "${PTX}.cubin" RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "ptxas -arch=${ARCH} rejected the PTX of ${SOURCE}")
endif()
