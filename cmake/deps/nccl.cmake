# NCCL (ships with the CUDA toolkit under /usr/local/cuda here): the CUDA collectives of
# tensorcore/distributed. Optional: without it the nccl backend raises "doesn't have NCCL built in".
if(TC_CUDA)
  find_path(TC_NCCL_INCLUDE nccl.h HINTS ${CUDAToolkit_INCLUDE_DIRS} $ENV{NCCL_ROOT}/include)
  find_library(TC_NCCL_LIBRARY NAMES nccl HINTS ${CUDAToolkit_LIBRARY_DIR} $ENV{NCCL_ROOT}/lib)
  if(TC_NCCL_INCLUDE AND TC_NCCL_LIBRARY)
    message(STATUS "NCCL: ${TC_NCCL_LIBRARY}")
    tc_core_use(DEFINE TC_WITH_NCCL LIBRARIES ${TC_NCCL_LIBRARY} INCLUDES ${TC_NCCL_INCLUDE}
                SOURCE tensorcore/distributed/process_group_nccl.cpp)
  else()
    message(WARNING "NCCL not found: the nccl backend of tensorcore.distributed is disabled")
  endif()
endif()
