# The audio front-end deployment example (C++ runs an audio transforms pipeline saved from
# Python) builds with -DTC_EXAMPLES=ON or with the benchmarks, unless the audio area is skipped.
option(TC_EXAMPLES "Build the example programs" OFF)
if((TC_EXAMPLES OR TC_BENCHMARKS) AND NOT "audio" IN_LIST TC_SKIP_AREAS)
  add_executable(audio_transforms_deploy ${PROJECT_SOURCE_DIR}/examples/audio_transforms_deploy.cpp)
  target_link_libraries(audio_transforms_deploy PRIVATE tensorcore)
  target_compile_options(audio_transforms_deploy PRIVATE -Wall -Wextra)
endif()
