# Gloo (Debian libgloo-dev): the CPU collectives of tensorcore/distributed. Optional: without it
# the gloo backend raises "Distributed package doesn't have Gloo built in".
find_library(TC_GLOO_LIBRARY NAMES gloo)
find_path(TC_GLOO_INCLUDE gloo/allreduce.h)
if(TC_GLOO_LIBRARY AND TC_GLOO_INCLUDE)
  message(STATUS "Gloo: ${TC_GLOO_LIBRARY}")
  tc_core_use(DEFINE TC_WITH_GLOO LIBRARIES ${TC_GLOO_LIBRARY} INCLUDES ${TC_GLOO_INCLUDE}
              SOURCE tensorcore/distributed/process_group_gloo.cpp)
else()
  message(WARNING "Gloo not found (apt-get install libgloo-dev): the gloo backend is disabled")
endif()
