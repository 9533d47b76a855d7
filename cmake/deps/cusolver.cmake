# cuSOLVER (CUDA toolkit) for tc.linalg on CUDA tensors (tensorcore/kernels/cuda/
# linalg_cusolver.cpp). Guarded: without it CUDA linalg raises "no kernel registered for device
# cuda". The define is set on that file alone so toggling it never recompiles the library.
if(TC_CUDA)
  if(NOT TARGET CUDA::cusolver)
    find_package(CUDAToolkit QUIET)
  endif()
  if(TARGET CUDA::cusolver)
    target_link_libraries(tensorcore_core PRIVATE CUDA::cusolver CUDA::cublas)
    set_property(SOURCE ${PROJECT_SOURCE_DIR}/tensorcore/kernels/cuda/linalg_cusolver.cpp
                 APPEND PROPERTY COMPILE_DEFINITIONS TC_WITH_CUSOLVER=1)
  else()
    message(WARNING "TC_CUDA is on but cuSOLVER was not found: tc.linalg will not run on CUDA tensors")
  endif()
endif()
