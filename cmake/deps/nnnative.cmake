# nn kernels: oneDNN (Debian libdnnl-dev) runs float32 convolution.
find_package(dnnl CONFIG QUIET)
if(TARGET DNNL::dnnl)
  target_link_libraries(tensorcore PRIVATE DNNL::dnnl)
else()
  find_library(TC_DNNL_LIBRARY NAMES dnnl REQUIRED)
  target_link_libraries(tensorcore PRIVATE ${TC_DNNL_LIBRARY})
endif()
