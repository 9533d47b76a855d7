# cuFFT for tc.fft on CUDA tensors (tensorcore/kernels/cuda/cufft.cpp). Guarded: without the
# library the FFT on CUDA tensors raises "no kernel registered" and the plan-cache API throws.
# The define is set on cufft.cpp alone so that toggling it never recompiles the whole library.
if(TC_CUDA)
  if(NOT TARGET CUDA::cufft)
    find_package(CUDAToolkit QUIET)
  endif()
  if(TARGET CUDA::cufft)
    target_link_libraries(tensorcore_core PRIVATE CUDA::cufft)
    set_property(SOURCE ${PROJECT_SOURCE_DIR}/tensorcore/kernels/cuda/cufft.cpp
                 APPEND PROPERTY COMPILE_DEFINITIONS TC_WITH_CUFFT=1)
  else()
    message(WARNING "TC_CUDA is on but cuFFT was not found: tc.fft will not run on CUDA tensors")
  endif()
endif()
