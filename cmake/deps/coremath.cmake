# The elementwise CPU kernels never read errno or the floating-point exception flags (PyTorch
# builds with the same two flags):
# - without -fno-math-errno GCC keeps a libm call per element for sqrt (and rsqrt), 4-8x
#   PyTorch's time; a `#pragma GCC optimize` in the source instead gives the functions an
#   optimize attribute, which also stops GCC from inlining the op lambdas;
# - without -fno-trapping-math floor/ceil/trunc/frac do not vectorize (3-4x PyTorch's time).
# NaN, infinity and signed-zero semantics are unchanged (no -ffast-math).
set_property(SOURCE
  ${PROJECT_SOURCE_DIR}/tensorcore/kernels/cpu/unary_kernels.cpp
  ${PROJECT_SOURCE_DIR}/tensorcore/kernels/cpu/unary_math_kernels.cpp
  ${PROJECT_SOURCE_DIR}/tensorcore/kernels/cpu/binary_math_kernels.cpp
  ${PROJECT_SOURCE_DIR}/tensorcore/kernels/cpu/random_kernels.cpp
  APPEND PROPERTY COMPILE_OPTIONS -fno-math-errno -fno-trapping-math)
