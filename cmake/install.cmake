# `cmake --install build --prefix P` gives P/lib/libtensorcore*.so, the headers under
# P/include/tensorcore (the include root: <tensorcore/tensor.h>, <vision/ops/ops.h>, ...) and the
# package config in P/lib/cmake/tensorcore, so a C++ project writes
#   find_package(tensorcore REQUIRED)
#   target_link_libraries(app PRIVATE tensorcore::vision)
# A wheel (scikit-build-core) holds the same tree inside the package folder
# (site-packages/tensorcore/{lib,include}, wheel.install-dir) with the extension beside it;
# tensorcore.utils.cmake_prefix_path points CMake at it.
include(CMakePackageConfigHelpers)
set(TC_INSTALL_LIBDIR "lib")
set(TC_INSTALL_INCLUDEDIR "include/tensorcore")
set(TC_INSTALL_CMAKEDIR "${TC_INSTALL_LIBDIR}/cmake/tensorcore")

install(TARGETS ${TC_LIBRARIES} EXPORT tensorcoreTargets
  LIBRARY DESTINATION ${TC_INSTALL_LIBDIR} COMPONENT runtime
  ARCHIVE DESTINATION ${TC_INSTALL_LIBDIR} COMPONENT dev
  INCLUDES DESTINATION ${TC_INSTALL_INCLUDEDIR})
foreach(folder tensorcore io vision audio models)
  install(DIRECTORY ${PROJECT_SOURCE_DIR}/${folder} DESTINATION ${TC_INSTALL_INCLUDEDIR}
    COMPONENT dev FILES_MATCHING PATTERN "*.h" PATTERN "*.cuh")
endforeach()

if(BUILD_SHARED_LIBS)
  # Static archives would carry their system libraries (pkg-config targets) into the export,
  # which CMake cannot export; a static build is for programs built inside this tree.
  install(EXPORT tensorcoreTargets NAMESPACE tensorcore:: DESTINATION ${TC_INSTALL_CMAKEDIR}
    COMPONENT dev)
  set(TC_CONFIG_CUDA ${TC_CUDA})
  configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/tensorcoreConfig.cmake.in
    ${CMAKE_BINARY_DIR}/tensorcoreConfig.cmake INSTALL_DESTINATION ${TC_INSTALL_CMAKEDIR})
  write_basic_package_version_file(${CMAKE_BINARY_DIR}/tensorcoreConfigVersion.cmake
    COMPATIBILITY SameMinorVersion)
  install(FILES ${CMAKE_BINARY_DIR}/tensorcoreConfig.cmake
    ${CMAKE_BINARY_DIR}/tensorcoreConfigVersion.cmake DESTINATION ${TC_INSTALL_CMAKEDIR}
    COMPONENT dev)
endif()

# The extension only goes into wheels (pyproject.toml asks for the component), at the package
# root with the libraries in lib/ beside it.
if(TC_PYTHON)
  install(TARGETS _C LIBRARY DESTINATION . COMPONENT python EXCLUDE_FROM_ALL)
endif()
