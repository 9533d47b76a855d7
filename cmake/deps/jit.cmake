# tensorcore/jit: the saved-graph files are zips (libzip, Debian libzip-dev) holding JSON
# (nlohmann-json, Debian nlohmann-json3-dev, header-only); dlopen loads the domain libraries.
find_package(PkgConfig REQUIRED)
pkg_check_modules(TC_LIBZIP REQUIRED IMPORTED_TARGET libzip)
find_package(nlohmann_json 3.9 REQUIRED)
target_link_libraries(tensorcore_core PRIVATE PkgConfig::TC_LIBZIP nlohmann_json::nlohmann_json
                      ${CMAKE_DL_LIBS})
