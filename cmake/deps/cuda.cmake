# CUDA backend: .cu kernels under tensorcore/ join libtensorcore; cudart and cuBLAS(Lt) link in.
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
  set_target_properties(tensorcore PROPERTIES CUDA_ARCHITECTURES "${CMAKE_CUDA_ARCHITECTURES}"
    CUDA_STANDARD 20 CUDA_STANDARD_REQUIRED ON CUDA_EXTENSIONS OFF)

  # The target's options are host-compiler flags (-march, -Wextra): keep them off nvcc.
  get_target_property(tc_cxx_opts tensorcore COMPILE_OPTIONS)
  if(tc_cxx_opts)
    set(tc_wrapped_opts "")
    foreach(opt IN LISTS tc_cxx_opts)
      list(APPEND tc_wrapped_opts "$<$<COMPILE_LANGUAGE:CXX>:${opt}>")
    endforeach()
    set_property(TARGET tensorcore PROPERTY COMPILE_OPTIONS ${tc_wrapped_opts})
  endif()

  file(GLOB_RECURSE TC_CUDA_SOURCES CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/tensorcore/*.cu)
  target_sources(tensorcore PRIVATE ${TC_CUDA_SOURCES})
  set_source_files_properties(${TC_CUDA_SOURCES} PROPERTIES COMPILE_OPTIONS
    "-O3;--expt-relaxed-constexpr;-Xcompiler=-fno-math-errno;-Xcudafe=--diag_suppress=20012")
  target_link_libraries(tensorcore PRIVATE CUDA::cudart CUDA::cublas CUDA::cublasLt)
endif()
