# nn kernels: oneDNN (Debian libdnnl-dev) runs float32 convolution. Optional: without it every
# convolution takes the im2col + GEMM path (e.g. on GPU machines that lack the package).
find_package(dnnl CONFIG QUIET)
if(TARGET DNNL::dnnl)
  tc_core_use(DEFINE TC_WITH_DNNL LIBRARIES DNNL::dnnl)
else()
  find_library(TC_DNNL_LIBRARY NAMES dnnl)
  find_path(TC_DNNL_INCLUDE dnnl.hpp)
  if(TC_DNNL_LIBRARY AND TC_DNNL_INCLUDE)
    tc_core_use(DEFINE TC_WITH_DNNL LIBRARIES ${TC_DNNL_LIBRARY})
  else()
    message(WARNING "oneDNN not found (apt install libdnnl-dev): float32 convolution uses im2col + GEMM")
  endif()
endif()
