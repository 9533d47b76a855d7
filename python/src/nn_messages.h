#pragma once
// Bindings whose C++ errors already carry torch's complete message (nn.init, the nn modules'
// rules): the error reaches Python as the matching built-in exception with exactly that text,
// without the "op(): " prefix the binding guard adds to messages that do not name their op.
#include <utility>

#include "bind.h"

namespace tc::python {

namespace detail {

template <typename R, typename... A, typename Fn>
auto rethrow_as_python(Fn fn) {
  return [fn](A... args) -> R {
    try {
      return fn(std::forward<A>(args)...);
    } catch (const ValueError& e) {
      throw py::value_error(e.what());
    } catch (const TypeError& e) {
      throw py::type_error(e.what());
    } catch (const IndexError& e) {
      throw py::index_error(e.what());
    }
  };
}

template <typename Fn, typename R, typename... A>
auto rethrow_member(Fn fn, R (Fn::*)(A...) const) {
  return rethrow_as_python<R, A...>(fn);
}

}  // namespace detail

// A lambda (non-generic) or function pointer, wrapped with the same signature.
template <typename Fn>
auto with_torch_messages(Fn fn) {
  return detail::rethrow_member(fn, &Fn::operator());
}
template <typename R, typename... A>
auto with_torch_messages(R (*fn)(A...)) {
  return detail::rethrow_as_python<R, A...>(fn);
}

}  // namespace tc::python
