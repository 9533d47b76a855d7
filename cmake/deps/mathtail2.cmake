# tests/cpp/mathtail2/trig_fma_test.cpp checks vec_math's FMA code paths (the double sin/cos/tan
# reduction by pi/2 has a separate FMA version), so it is built with the library's ISA flags
# while the rest of tc_tests keeps plain x86-64 (the non-FMA paths).
set_property(SOURCE ${PROJECT_SOURCE_DIR}/tests/cpp/mathtail2/trig_fma_test.cpp
  APPEND PROPERTY COMPILE_OPTIONS ${TC_ARCH_FLAGS})
