# cuFFT for tc.fft on CUDA tensors (tensorcore/kernels/cuda/cufft.cpp). Guarded: without the
# library the FFT on CUDA tensors raises "no kernel registered" and the plan-cache API throws.
# The define is set on cufft.cpp alone so that toggling it never recompiles the whole library.
if(TC_CUDA)
  if(NOT TARGET CUDA::cufft)
    find_package(CUDAToolkit QUIET)
  endif()
  if(TARGET CUDA::cufft)
    tc_core_use(DEFINE TC_WITH_CUFFT LIBRARIES CUDA::cufft SOURCE tensorcore/kernels/cuda/cufft.cpp)
  else()
    message(WARNING "TC_CUDA is on but cuFFT was not found: tc.fft will not run on CUDA tensors")
  endif()
endif()
