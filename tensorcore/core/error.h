#pragma once
// One exception family; Python maps each subclass to the matching builtin exception.
#include <sstream>
#include <stdexcept>
#include <string>

namespace tc {

struct Error : std::runtime_error {
  using std::runtime_error::runtime_error;
};
struct ValueError : Error {
  using Error::Error;
};
struct IndexError : Error {
  using Error::Error;
};
struct TypeError : Error {
  using Error::Error;
};
struct NotImplementedError : Error {
  using Error::Error;
};
struct DecodeError : Error {
  using Error::Error;
};

namespace detail {
template <typename... Args>
std::string concat(const Args&... args) {
  std::ostringstream os;
  (os << ... << args);
  return os.str();
}
}  // namespace detail

}  // namespace tc

// TC_CHECK(cond, "op: expected ", a, " but got ", b) throws tc::ValueError.
#define TC_CHECK_AS(ExcType, cond, ...)                 \
  do {                                                  \
    if (__builtin_expect(!(cond), 0)) {                 \
      throw ExcType(::tc::detail::concat(__VA_ARGS__)); \
    }                                                   \
  } while (0)
#define TC_CHECK(cond, ...) TC_CHECK_AS(::tc::ValueError, cond, __VA_ARGS__)
#define TC_CHECK_INDEX(cond, ...) TC_CHECK_AS(::tc::IndexError, cond, __VA_ARGS__)
#define TC_CHECK_TYPE(cond, ...) TC_CHECK_AS(::tc::TypeError, cond, __VA_ARGS__)
#define TC_FAIL(...) throw ::tc::Error(::tc::detail::concat(__VA_ARGS__))
