# Image IO (tensorcore/io/image): libjpeg-turbo (libjpeg API) and libpng.
find_package(PkgConfig REQUIRED)
pkg_check_modules(TC_LIBJPEG REQUIRED IMPORTED_TARGET libjpeg)
pkg_check_modules(TC_LIBPNG REQUIRED IMPORTED_TARGET libpng)
target_link_libraries(tensorcore PRIVATE PkgConfig::TC_LIBJPEG PkgConfig::TC_LIBPNG)
