# Audio IO and effects go through libsox (SoX 14.4).
find_package(PkgConfig REQUIRED)
pkg_check_modules(SOX REQUIRED IMPORTED_TARGET sox)
target_link_libraries(tensorcore PRIVATE PkgConfig::SOX)
