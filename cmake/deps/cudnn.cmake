# cuDNN 9 (ships with the CUDA toolkit under /usr/local/cuda here): convolution on CUDA.
# Optional: without it the build still works and CUDA convolutions raise "not compiled with cuDNN".
# -DTC_CUDNN=OFF leaves it out on purpose.
option(TC_CUDNN "Use cuDNN for convolution on CUDA when it is found" ON)
if(TC_CUDA AND TC_CUDNN)
  set(tc_cudnn_hints ${CUDAToolkit_LIBRARY_DIR} ${CUDAToolkit_LIBRARY_ROOT}/lib
      ${CUDAToolkit_LIBRARY_ROOT}/lib64 ${CUDAToolkit_TARGET_DIR}/lib ${CUDAToolkit_TARGET_DIR}/lib64)
  find_path(TC_CUDNN_INCLUDE cudnn.h HINTS ${CUDAToolkit_INCLUDE_DIRS} $ENV{CUDNN_ROOT}/include)
  find_library(TC_CUDNN_LIBRARY NAMES cudnn HINTS ${tc_cudnn_hints} $ENV{CUDNN_ROOT}/lib)
  if(TC_CUDNN_INCLUDE AND TC_CUDNN_LIBRARY)
    file(STRINGS ${TC_CUDNN_INCLUDE}/cudnn_version.h tc_cudnn_major REGEX "#define CUDNN_MAJOR ")
    string(REGEX MATCH "[0-9]+" tc_cudnn_major "${tc_cudnn_major}")
    if(tc_cudnn_major AND tc_cudnn_major GREATER_EQUAL 8)
      message(STATUS "cuDNN ${tc_cudnn_major}: ${TC_CUDNN_LIBRARY}")
      tc_core_use(DEFINE TC_WITH_CUDNN LIBRARIES ${TC_CUDNN_LIBRARY} INCLUDES ${TC_CUDNN_INCLUDE})
    else()
      message(WARNING "cuDNN at ${TC_CUDNN_INCLUDE} is older than 8: CUDA convolution disabled")
    endif()
  else()
    message(WARNING "cuDNN not found: convolutions on CUDA tensors will raise 'not compiled with cuDNN'")
  endif()
endif()
