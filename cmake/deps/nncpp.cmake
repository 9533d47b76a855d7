# The C++ frontend (tc::nn modules, tc::optim, tc::data) needs no system library. Its example
# program (a small CNN trained on synthetic data from plain C++) builds with -DTC_EXAMPLES=ON.
option(TC_EXAMPLES "Build the example programs" OFF)
if(TC_EXAMPLES)
  add_executable(cpp_train_mnist_like ${PROJECT_SOURCE_DIR}/examples/cpp_train_mnist_like.cpp)
  target_link_libraries(cpp_train_mnist_like PRIVATE tensorcore)
  target_compile_options(cpp_train_mnist_like PRIVATE -Wall -Wextra)
endif()
