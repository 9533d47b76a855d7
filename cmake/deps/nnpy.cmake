# tensorcore/optim: fused optimizer loops call sqrt per element; without errno handling GCC can
# vectorize them (the results are identical, only errno is not set).
file(GLOB TC_OPTIM_SOURCES ${PROJECT_SOURCE_DIR}/tensorcore/optim/*.cpp)
if(TC_OPTIM_SOURCES)
  set_property(SOURCE ${TC_OPTIM_SOURCES} APPEND PROPERTY COMPILE_OPTIONS -fno-math-errno)
endif()
