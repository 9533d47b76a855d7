# tensorcore.vision needs no system library. Its deployment example (a C++ program running a
# transforms pipeline saved from Python) builds with -DTC_EXAMPLES=ON or with the benchmarks.
option(TC_EXAMPLES "Build the example programs" OFF)
if(TC_EXAMPLES OR TC_BENCHMARKS)
  add_executable(vision_transforms_deploy ${PROJECT_SOURCE_DIR}/examples/vision_transforms_deploy.cpp)
  target_link_libraries(vision_transforms_deploy PRIVATE tensorcore)
  target_compile_options(vision_transforms_deploy PRIVATE -Wall -Wextra)
endif()

# The CUDA image kernels share their per-pixel code with the CPU kernels (compiled without FMA
# contraction) and must round the same way: no FMA contraction in nvcc either.
if(TC_CUDA)
  set_property(SOURCE ${PROJECT_SOURCE_DIR}/tensorcore/vision/cuda/transforms_cuda.cu
    APPEND PROPERTY COMPILE_OPTIONS "--fmad=false")
endif()
