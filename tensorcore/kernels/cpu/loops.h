#pragma once
// cpu_kernel(iter, [](float a, float b) { return a + b; }) runs a scalar functor over a
// TensorIter. Contiguous and scalar-broadcast inner loops get typed, restrict-free-of-aliasing
// pointer loops that GCC vectorizes.
#include <tuple>
#include <type_traits>
#include <utility>

#include "tensorcore/core/tensor_iter.h"

namespace tc {

template <typename F>
struct function_traits : function_traits<decltype(&F::operator())> {};
template <typename C, typename R, typename... A>
struct function_traits<R (C::*)(A...) const> {
  using result_type = R;
  using args = std::tuple<std::decay_t<A>...>;
  static constexpr int arity = sizeof...(A);
};
template <typename R, typename... A>
struct function_traits<R (*)(A...)> {
  using result_type = R;
  using args = std::tuple<std::decay_t<A>...>;
  static constexpr int arity = sizeof...(A);
};

namespace detail {

template <typename Op, size_t... I>
inline void loop_contiguous(char** data, int64_t n, Op& op, std::index_sequence<I...>) {
  using traits = function_traits<Op>;
  using R = typename traits::result_type;
  R* out = reinterpret_cast<R*>(data[0]);
  std::tuple<const std::tuple_element_t<I, typename traits::args>*...> in{
      reinterpret_cast<const std::tuple_element_t<I, typename traits::args>*>(data[1 + I])...};
  for (int64_t i = 0; i < n; ++i) out[i] = op(std::get<I>(in)[i]...);
}

// Input `S` is broadcast (stride 0): hoist its load so the loop stays vectorizable.
template <size_t S, typename Op, size_t... I>
inline void loop_with_scalar(char** data, int64_t n, Op& op, std::index_sequence<I...>) {
  using traits = function_traits<Op>;
  using R = typename traits::result_type;
  using ST = std::tuple_element_t<S, typename traits::args>;
  R* out = reinterpret_cast<R*>(data[0]);
  const ST scalar = *reinterpret_cast<const ST*>(data[1 + S]);
  std::tuple<const std::tuple_element_t<I, typename traits::args>*...> in{
      reinterpret_cast<const std::tuple_element_t<I, typename traits::args>*>(data[1 + I])...};
  for (int64_t i = 0; i < n; ++i) out[i] = op((I == S ? scalar : std::get<I>(in)[i])...);
}

template <typename Op, size_t... I>
inline void loop_strided(char** data, const int64_t* strides, int64_t n, Op& op,
                         std::index_sequence<I...>) {
  using traits = function_traits<Op>;
  using R = typename traits::result_type;
  for (int64_t i = 0; i < n; ++i) {
    *reinterpret_cast<R*>(data[0] + i * strides[0]) =
        op(*reinterpret_cast<const std::tuple_element_t<I, typename traits::args>*>(
            data[1 + I] + i * strides[1 + I])...);
  }
}

template <typename Op, size_t... I>
inline bool all_contiguous(const int64_t* strides, std::index_sequence<I...>) {
  using traits = function_traits<Op>;
  using R = typename traits::result_type;
  return strides[0] == sizeof(R) &&
         ((strides[1 + I] == sizeof(std::tuple_element_t<I, typename traits::args>)) && ...);
}

template <size_t S, typename Op, size_t... I>
inline bool contiguous_but_scalar(const int64_t* strides, std::index_sequence<I...>) {
  using traits = function_traits<Op>;
  using R = typename traits::result_type;
  return strides[0] == sizeof(R) &&
         ((I == S ? strides[1 + I] == 0
                  : strides[1 + I] == sizeof(std::tuple_element_t<I, typename traits::args>)) &&
          ...);
}

}  // namespace detail

template <typename Op>
void cpu_kernel(TensorIter& iter, Op op, int64_t grain = 32768) {
  using traits = function_traits<Op>;
  constexpr int N = traits::arity;
  using Seq = std::make_index_sequence<N>;
  iter.for_each(
      [&](char** data, const int64_t* strides, int64_t n) {
        if (detail::all_contiguous<Op>(strides, Seq{})) {
          detail::loop_contiguous(data, n, op, Seq{});
          return;
        }
        if constexpr (N == 2) {
          if (detail::contiguous_but_scalar<0, Op>(strides, Seq{})) {
            detail::loop_with_scalar<0>(data, n, op, Seq{});
            return;
          }
          if (detail::contiguous_but_scalar<1, Op>(strides, Seq{})) {
            detail::loop_with_scalar<1>(data, n, op, Seq{});
            return;
          }
        }
        detail::loop_strided(data, strides, n, op, Seq{});
      },
      grain);
}

// One-input kernels with an array implementation (vec_math's exp_array & co., which handle a
// whole contiguous run at once): contiguous inner loops call `array(in, out, n)`, other layouts
// `scalar` per element. T is the compute dtype (the iter's common dtype).
template <typename T, typename ArrayFn, typename ScalarFn>
void cpu_unary_array_kernel(TensorIter& iter, ArrayFn array, ScalarFn scalar,
                            int64_t grain = 32768) {
  iter.for_each(
      [&](char** data, const int64_t* strides, int64_t n) {
        if (strides[0] == sizeof(T) && strides[1] == sizeof(T)) {
          array(reinterpret_cast<const T*>(data[1]), reinterpret_cast<T*>(data[0]), n);
          return;
        }
        for (int64_t i = 0; i < n; ++i) {
          *reinterpret_cast<T*>(data[0] + i * strides[0]) =
              scalar(*reinterpret_cast<const T*>(data[1] + i * strides[1]));
        }
      },
      grain);
}

}  // namespace tc
