# CUDA: nvcc compiles the .cu files of every library (sm_80 and sm_90 unless told otherwise).
if(TC_CUDA)
  if(NOT CMAKE_CUDA_ARCHITECTURES)
    set(CMAKE_CUDA_ARCHITECTURES 80 90)
  endif()
  if(CCACHE_PROGRAM)
    set(CMAKE_CUDA_COMPILER_LAUNCHER ${CCACHE_PROGRAM})
  endif()
  enable_language(CUDA)
  find_package(CUDAToolkit REQUIRED)
  # CMake 3.25 does not know nvcc 13's C++20 flag; tell it.
  set(CMAKE_CUDA20_STANDARD_COMPILE_OPTION "-std=c++20")
  set(CMAKE_CUDA20_EXTENSION_COMPILE_OPTION "-std=c++20")
  set(TC_CUDA_COMPILE_OPTIONS
    "-O3;--expt-relaxed-constexpr;-Xcompiler=-fno-math-errno;-Xcudafe=--diag_suppress=20012")
endif()
