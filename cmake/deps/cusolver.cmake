# cuSOLVER (CUDA toolkit) for tc.linalg on CUDA tensors (tensorcore/kernels/cuda/
# linalg_cusolver.cpp). Guarded: without it CUDA linalg raises "no kernel registered for device
# cuda". The define is set on that file alone so toggling it never recompiles the library.
if(TC_CUDA)
  if(NOT TARGET CUDA::cusolver)
    find_package(CUDAToolkit QUIET)
  endif()
  if(TARGET CUDA::cusolver)
    tc_core_use(DEFINE TC_WITH_CUSOLVER LIBRARIES CUDA::cusolver CUDA::cublas
                SOURCE tensorcore/kernels/cuda/linalg_cusolver.cpp)
  else()
    message(WARNING "TC_CUDA is on but cuSOLVER was not found: tc.linalg will not run on CUDA tensors")
  endif()
endif()
