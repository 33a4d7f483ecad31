# The CUDA/NCCL backend of `faultline repro`, built only where a CUDA compiler, cuBLAS and NCCL
# are found; everywhere else faultline builds without it and `--backend cuda` says so.
#
#   -DFAULTLINE_CUDA=OFF                 never look for CUDA
#   -DCMAKE_CUDA_COMPILER=/path/nvcc     which nvcc (else $CUDACXX, PATH, $CUDA_HOME, /usr/local/cuda)
#   -DCMAKE_CUDA_ARCHITECTURES=...       default "80;90": Ampere and Hopper, and no more, to keep
#                                        the build short
#   NCCL_HOME (environment) or -DNCCL_ROOT=...   where NCCL is when it is not beside CUDA
#
# Sets FAULTLINE_CUDA_ENABLED and, when ON, the imported target faultline::nccl.
option(FAULTLINE_CUDA "Build the CUDA/NCCL backend of 'faultline repro' where CUDA and NCCL are found" ON)
set(FAULTLINE_CUDA_ENABLED OFF)

if(NOT FAULTLINE_CUDA)
  message(STATUS "faultline: FAULTLINE_CUDA is OFF: building without the CUDA backend of 'repro'")
  return()
endif()

if(NOT CMAKE_CUDA_COMPILER AND NOT DEFINED ENV{CUDACXX})
  find_program(FAULTLINE_NVCC nvcc HINTS ENV CUDA_HOME ENV CUDA_PATH /usr/local/cuda PATH_SUFFIXES bin)
  if(FAULTLINE_NVCC)
    set(CMAKE_CUDA_COMPILER ${FAULTLINE_NVCC})
  endif()
endif()
include(CheckLanguage)
check_language(CUDA)
if(NOT CMAKE_CUDA_COMPILER)
  message(STATUS "faultline: no CUDA compiler found: building without the CUDA backend of 'repro'")
  return()
endif()

if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES)
  set(CMAKE_CUDA_ARCHITECTURES "80;90")
endif()
enable_language(CUDA)
set(CMAKE_CUDA_STANDARD 17)
set(CMAKE_CUDA_STANDARD_REQUIRED ON)
find_package(CUDAToolkit)

set(faultline_nccl_hints $ENV{NCCL_HOME} ${NCCL_ROOT} ${CUDAToolkit_LIBRARY_ROOT} /usr/local/cuda)
find_path(NCCL_INCLUDE_DIR nccl.h HINTS ${faultline_nccl_hints} ${CUDAToolkit_INCLUDE_DIRS} PATH_SUFFIXES include)
find_library(NCCL_LIBRARY nccl HINTS ${faultline_nccl_hints} ${CUDAToolkit_LIBRARY_DIR} PATH_SUFFIXES lib64 lib)
set(faultline_nccl_version "")
if(NCCL_INCLUDE_DIR)
  file(STRINGS ${NCCL_INCLUDE_DIR}/nccl.h faultline_nccl_defines REGEX "^#define NCCL_(MAJOR|MINOR|PATCH) ")
  string(REGEX REPLACE ".*NCCL_MAJOR ([0-9]+).*NCCL_MINOR ([0-9]+).*NCCL_PATCH ([0-9]+).*" "\\1.\\2.\\3"
         faultline_nccl_version "${faultline_nccl_defines}")
endif()

if(NOT CUDAToolkit_FOUND OR NOT TARGET CUDA::cublas OR NOT TARGET CUDA::cudart)
  message(STATUS "faultline: nvcc found (${CMAKE_CUDA_COMPILER}) but not the CUDA toolkit's cuBLAS and runtime: "
                 "building without the CUDA backend of 'repro'")
elseif(NOT NCCL_INCLUDE_DIR OR NOT NCCL_LIBRARY)
  message(STATUS "faultline: CUDA ${CUDAToolkit_VERSION} found but not NCCL (looked under NCCL_HOME and "
                 "/usr/local/cuda): building without the CUDA backend of 'repro'")
elseif(faultline_nccl_version VERSION_LESS 2.14)
  message(STATUS "faultline: NCCL ${faultline_nccl_version} is older than 2.14 (no non-blocking "
                 "communicators): building without the CUDA backend of 'repro'")
else()
  add_library(faultline::nccl UNKNOWN IMPORTED)
  set_target_properties(faultline::nccl PROPERTIES
    IMPORTED_LOCATION ${NCCL_LIBRARY}
    INTERFACE_INCLUDE_DIRECTORIES ${NCCL_INCLUDE_DIR})
  set(FAULTLINE_CUDA_ENABLED ON)
  message(STATUS "faultline: CUDA backend of 'repro' ON: CUDA ${CUDAToolkit_VERSION}, NCCL "
                 "${faultline_nccl_version} (${NCCL_LIBRARY}), architectures ${CMAKE_CUDA_ARCHITECTURES}")
endif()
