# tc_add_library(<area> SOURCES ... [DEPENDS <tensorcore targets>...]) makes the library
# tensorcore_<area> (alias and exported name tensorcore::<area>, file libtensorcore_<area>; the
# core's file is libtensorcore). Its sources get the kernel flags (-O3 and the ISA flags, C++
# only), its .cu files nvcc's, and its headers are included as "<folder>/..." from the source root
# (and from include/tensorcore once installed).
set(TC_LIBRARIES "" CACHE INTERNAL "")
function(tc_add_library area)
  cmake_parse_arguments(ARG "" "" "SOURCES;DEPENDS" ${ARGN})
  set(target tensorcore_${area})
  tc_drop_skipped_areas(ARG_SOURCES)
  add_library(${target} ${ARG_SOURCES})
  add_library(tensorcore::${area} ALIAS ${target})
  set(output_name tensorcore_${area})
  if(area STREQUAL "core")
    set(output_name tensorcore)
  endif()
  # No <target>_EXPORTS define (nothing uses it): shared and static objects then compile with
  # the same flags, so a static build after a shared one comes from ccache.
  set_target_properties(${target} PROPERTIES OUTPUT_NAME ${output_name} EXPORT_NAME ${area}
    BUILD_RPATH "${CMAKE_BINARY_DIR}/lib" INSTALL_RPATH "$ORIGIN" DEFINE_SYMBOL "")
  target_include_directories(${target} PUBLIC
    $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}> $<INSTALL_INTERFACE:include/tensorcore>)
  target_compile_options(${target} PRIVATE
    $<$<COMPILE_LANGUAGE:CXX>:-Wall> $<$<COMPILE_LANGUAGE:CXX>:-Wextra>)
  foreach(flag ${TC_ARCH_FLAGS})
    target_compile_options(${target} PRIVATE $<$<COMPILE_LANGUAGE:CXX>:${flag}>)
  endforeach()
  # Kernels are hot loops: -O3 lets GCC vectorize them.
  set(cxx_sources ${ARG_SOURCES})
  list(FILTER cxx_sources INCLUDE REGEX "\\.cpp$")
  set_source_files_properties(${cxx_sources} PROPERTIES COMPILE_OPTIONS "-O3")
  if(TC_CUDA)
    set(cuda_sources ${ARG_SOURCES})
    list(FILTER cuda_sources INCLUDE REGEX "\\.cu$")
    set_source_files_properties(${cuda_sources} PROPERTIES COMPILE_OPTIONS "${TC_CUDA_COMPILE_OPTIONS}")
    set_target_properties(${target} PROPERTIES CUDA_ARCHITECTURES "${CMAKE_CUDA_ARCHITECTURES}"
      CUDA_STANDARD 20 CUDA_STANDARD_REQUIRED ON CUDA_EXTENSIONS OFF)
  endif()
  # A static archive drops the objects nothing references, and kernels register themselves from
  # objects nothing references: consumers link the archives whole.
  tc_link_whole(${target} PUBLIC ${ARG_DEPENDS})
  set(TC_LIBRARIES ${TC_LIBRARIES} ${target} CACHE INTERNAL "")
endfunction()

# tc_link_suite(<target> <tensorcore targets>...) links a program or module against libraries of
# the suite (whole archives in a static build, for the same reason as above).
function(tc_link_suite target)
  tc_link_whole(${target} PRIVATE ${ARGN})
endfunction()

# tc_link_whole(<target> PUBLIC|PRIVATE <tensorcore targets>...): the libraries, as whole archives
# in a static build.
function(tc_link_whole target scope)
  foreach(dep ${ARGN})
    if(BUILD_SHARED_LIBS)
      target_link_libraries(${target} ${scope} ${dep})
    else()
      target_link_libraries(${target} ${scope} "$<LINK_LIBRARY:WHOLE_ARCHIVE,${dep}>")
    endif()
  endforeach()
endfunction()

# tc_core_use(DEFINE <macro> LIBRARIES <libs>... [INCLUDES <dirs>...] [SOURCE <file>]) links an
# optional dependency that cmake/deps/ found into tensorcore_core and defines <macro>=1: on SOURCE
# alone when given (the one file using it, so toggling the dependency recompiles only that file),
# else on the whole library.
function(tc_core_use)
  cmake_parse_arguments(ARG "" "DEFINE;SOURCE" "LIBRARIES;INCLUDES" ${ARGN})
  if(ARG_INCLUDES)
    target_include_directories(tensorcore_core PRIVATE ${ARG_INCLUDES})
  endif()
  target_link_libraries(tensorcore_core PRIVATE ${ARG_LIBRARIES})
  if(ARG_SOURCE)
    set_property(SOURCE ${PROJECT_SOURCE_DIR}/${ARG_SOURCE}
                 APPEND PROPERTY COMPILE_DEFINITIONS ${ARG_DEFINE}=1)
  else()
    target_compile_definitions(tensorcore_core PRIVATE ${ARG_DEFINE}=1)
  endif()
endfunction()
