# `cmake --install build --prefix P` gives P/lib/libtensorcore*.so, the headers under
# P/include/tensorcore (the include root: <tensorcore/tensor.h>, <vision/ops/ops.h>, ...) and the
# package config in P/lib/cmake/tensorcore, so a C++ project writes
#   find_package(tensorcore REQUIRED)
#   target_link_libraries(app PRIVATE tensorcore::vision)
# A wheel (scikit-build-core, SKBUILD set) holds the same tree inside the package folder
# (site-packages/tensorcore/{lib,include}) with the extension beside it;
# tensorcore.utils.cmake_prefix_path points CMake at it.
include(CMakePackageConfigHelpers)
if(SKBUILD)
  set(TC_INSTALL_ROOT "tensorcore/")
else()
  set(TC_INSTALL_ROOT "")
endif()
set(TC_INSTALL_LIBDIR "${TC_INSTALL_ROOT}lib")
set(TC_INSTALL_INCLUDEDIR "${TC_INSTALL_ROOT}include/tensorcore")
set(TC_INSTALL_CMAKEDIR "${TC_INSTALL_LIBDIR}/cmake/tensorcore")

install(TARGETS ${TC_LIBRARIES} EXPORT tensorcoreTargets
  LIBRARY DESTINATION ${TC_INSTALL_LIBDIR} ARCHIVE DESTINATION ${TC_INSTALL_LIBDIR}
  INCLUDES DESTINATION ${TC_INSTALL_INCLUDEDIR})
foreach(folder tensorcore io vision audio)
  install(DIRECTORY ${PROJECT_SOURCE_DIR}/${folder} DESTINATION ${TC_INSTALL_INCLUDEDIR}
    FILES_MATCHING PATTERN "*.h" PATTERN "*.cuh")
endforeach()

if(BUILD_SHARED_LIBS)
  # Static archives would carry their system libraries (pkg-config targets) into the export,
  # which CMake cannot export; a static build is for programs built inside this tree.
  install(EXPORT tensorcoreTargets NAMESPACE tensorcore:: DESTINATION ${TC_INSTALL_CMAKEDIR})
  set(TC_CONFIG_CUDA ${TC_CUDA})
  configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/tensorcoreConfig.cmake.in
    ${CMAKE_BINARY_DIR}/tensorcoreConfig.cmake INSTALL_DESTINATION ${TC_INSTALL_CMAKEDIR})
  write_basic_package_version_file(${CMAKE_BINARY_DIR}/tensorcoreConfigVersion.cmake
    COMPATIBILITY SameMinorVersion)
  install(FILES ${CMAKE_BINARY_DIR}/tensorcoreConfig.cmake
    ${CMAKE_BINARY_DIR}/tensorcoreConfigVersion.cmake DESTINATION ${TC_INSTALL_CMAKEDIR})
endif()

if(SKBUILD AND TC_PYTHON)
  install(TARGETS _C LIBRARY DESTINATION tensorcore)
endif()
