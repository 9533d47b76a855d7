# tensorcore.vision needs no system library. Its deployment example (a C++ program running a
# transforms pipeline saved from Python) builds with -DTC_EXAMPLES=ON or with the benchmarks.
option(TC_EXAMPLES "Build the example programs" OFF)
if(TC_EXAMPLES OR TC_BENCHMARKS)
  add_executable(vision_transforms_deploy ${PROJECT_SOURCE_DIR}/examples/vision_transforms_deploy.cpp)
  target_link_libraries(vision_transforms_deploy PRIVATE tensorcore)
  target_compile_options(vision_transforms_deploy PRIVATE -Wall -Wextra)
endif()
