# Gloo (Debian libgloo-dev): the CPU collectives of tensorcore/distributed. Optional: without it
# the gloo backend raises "Distributed package doesn't have Gloo built in".
find_library(TC_GLOO_LIBRARY NAMES gloo)
find_path(TC_GLOO_INCLUDE gloo/allreduce.h)
if(TC_GLOO_LIBRARY AND TC_GLOO_INCLUDE)
  message(STATUS "Gloo: ${TC_GLOO_LIBRARY}")
  target_include_directories(tensorcore_core PRIVATE ${TC_GLOO_INCLUDE})
  target_link_libraries(tensorcore_core PRIVATE ${TC_GLOO_LIBRARY})
  set_property(SOURCE ${PROJECT_SOURCE_DIR}/tensorcore/distributed/process_group_gloo.cpp
               APPEND PROPERTY COMPILE_DEFINITIONS TC_WITH_GLOO=1)
else()
  message(WARNING "Gloo not found (apt-get install libgloo-dev): the gloo backend is disabled")
endif()
