// Runtime adapters for the nn kernels bound in python/src/nn.cpp (tensorcore._C._nn), unpacking
// arguments as those bindings do.
#include "tensorcore/jit/op_registry.h"
#include "tensorcore/nn/functional.h"

namespace tc::jit {
namespace {

namespace F = tc::nn::functional;

void reg(const char* name, OpFn fn) { register_op(std::string("_C._nn.") + name, std::move(fn)); }

F::IntList adaptive_size(const IValue& v) {
  if (v.is_int()) return {v.to_int()};
  F::IntList out;
  for (const IValue& x : v.items()) out.push_back(x.is_none() ? -1 : x.to_int());
  return out;
}

IValue maybe_indices(const std::pair<Tensor, Tensor>& r, bool return_indices) {
  if (return_indices) return IValue::tuple({r.first, r.second});
  return r.first;
}

template <typename Conv, typename ConvStr>
OpFn conv(Conv c, ConvStr c_str) {
  return [=](const OpArgs& a) {
    const int64_t groups = a.has(6) ? a.int_(6) : 1;
    if (a.has(4) && a[4].is_string())
      return IValue(c_str(a.tensor(0), a.tensor(1), a.opt_tensor(2), a.ints(3), a.str(4).c_str(),
                          a.ints(5), groups));
    return IValue(
        c(a.tensor(0), a.tensor(1), a.opt_tensor(2), a.ints(3), a.ints(4), a.ints(5), groups));
  };
}

template <typename ConvT>
OpFn conv_transpose(ConvT c) {
  return [=](const OpArgs& a) {
    return IValue(c(a.tensor(0), a.tensor(1), a.opt_tensor(2), a.ints(3), a.ints(4), a.ints(5),
                    a.int_(6), a.ints(7)));
  };
}

template <typename Pool>
OpFn max_pool(Pool p, bool with_flag) {
  return [=](const OpArgs& a) {
    auto r = p(a.tensor(0), a.ints(1), a.opt_ints(2), a.ints(3), a.ints(4), a.bool_(5));
    return maybe_indices(r, with_flag ? a.bool_(6) : true);
  };
}

const bool registered = [] {
  using CI = Tensor (*)(const Tensor&, const Tensor&, const Tensor&, const F::IntList&,
                        const F::IntList&, const F::IntList&, int64_t);
  using CS = Tensor (*)(const Tensor&, const Tensor&, const Tensor&, const F::IntList&, const char*,
                        const F::IntList&, int64_t);
  reg("conv1d", conv(static_cast<CI>(&F::conv1d), static_cast<CS>(&F::conv1d)));
  reg("conv2d", conv(static_cast<CI>(&F::conv2d), static_cast<CS>(&F::conv2d)));
  reg("conv3d", conv(static_cast<CI>(&F::conv3d), static_cast<CS>(&F::conv3d)));
  reg("_conv_fused", [](const OpArgs& a) {
    return IValue(F::conv_fused(a.tensor(0), a.tensor(1), a.opt_tensor(2), a.ints(3), a.ints(4),
                                a.ints(5), a.int_(6), a.opt_tensor(7), a.int_(8), a.bool_(9),
                                a.has(10) && a.bool_(10)));
  });
  reg("conv_transpose1d", conv_transpose(&F::conv_transpose1d));
  reg("conv_transpose2d", conv_transpose(&F::conv_transpose2d));
  reg("conv_transpose3d", conv_transpose(&F::conv_transpose3d));
  reg("max_pool1d", max_pool(&F::max_pool1d_with_indices, true));
  reg("max_pool2d", max_pool(&F::max_pool2d_with_indices, true));
  reg("max_pool3d", max_pool(&F::max_pool3d_with_indices, true));
  reg("max_pool1d_with_indices", max_pool(&F::max_pool1d_with_indices, false));
  reg("max_pool2d_with_indices", max_pool(&F::max_pool2d_with_indices, false));
  reg("avg_pool1d", [](const OpArgs& a) {
    return IValue(
        F::avg_pool1d(a.tensor(0), a.ints(1), a.opt_ints(2), a.ints(3), a.bool_(4), a.bool_(5)));
  });
  reg("avg_pool2d", [](const OpArgs& a) {
    return IValue(F::avg_pool2d(a.tensor(0), a.ints(1), a.opt_ints(2), a.ints(3), a.bool_(4),
                                a.bool_(5), a.opt_int(6)));
  });
  reg("adaptive_avg_pool1d", [](const OpArgs& a) {
    return IValue(F::adaptive_avg_pool1d(a.tensor(0), adaptive_size(a[1])));
  });
  reg("adaptive_avg_pool2d", [](const OpArgs& a) {
    return IValue(F::adaptive_avg_pool2d(a.tensor(0), adaptive_size(a[1])));
  });
  reg("adaptive_max_pool2d", [](const OpArgs& a) {
    return maybe_indices(F::adaptive_max_pool2d_with_indices(a.tensor(0), adaptive_size(a[1])),
                         a.bool_(2));
  });
  reg("batch_norm", [](const OpArgs& a) {
    return IValue(F::batch_norm(a.tensor(0), a.opt_tensor(1), a.opt_tensor(2), a.opt_tensor(3),
                                a.opt_tensor(4), a.bool_(5), a.double_(6), a.double_(7)));
  });
  reg("instance_norm", [](const OpArgs& a) {
    return IValue(F::instance_norm(a.tensor(0), a.opt_tensor(1), a.opt_tensor(2), a.opt_tensor(3),
                                   a.opt_tensor(4), a.bool_(5), a.double_(6), a.double_(7)));
  });
  reg("layer_norm", [](const OpArgs& a) {
    return IValue(
        F::layer_norm(a.tensor(0), a.ints(1), a.opt_tensor(2), a.opt_tensor(3), a.double_(4)));
  });
  reg("group_norm", [](const OpArgs& a) {
    return IValue(
        F::group_norm(a.tensor(0), a.int_(1), a.opt_tensor(2), a.opt_tensor(3), a.double_(4)));
  });
  reg("_interpolate", [](const OpArgs& a) {
    std::vector<double> scales;
    if (a.has(4))
      for (const IValue& v : a[4].items()) scales.push_back(v.is_none() ? -1.0 : v.to_double());
    return IValue(
        F::interpolate_to_size(a.tensor(0), a.ints(1), a.str(2), a.bool_(3), scales, a.bool_(5)));
  });
  reg("_interpolate_like", [](const OpArgs& a) {
    return IValue(F::interpolate_like(a.tensor(0), a.tensor(1), a.str(2), a.bool_(3)));
  });
  reg("pad", [](const OpArgs& a) {
    return IValue(F::pad(a.tensor(0), a.ints(1), a.has(2) ? a.str(2) : "constant",
                         a.has(3) ? a.double_(3) : 0.0));
  });
  reg("pixel_shuffle",
      [](const OpArgs& a) { return IValue(F::pixel_shuffle(a.tensor(0), a.int_(1))); });
  reg("pixel_unshuffle",
      [](const OpArgs& a) { return IValue(F::pixel_unshuffle(a.tensor(0), a.int_(1))); });
  reg("dropout", [](const OpArgs& a) {
    return IValue(F::dropout(a.tensor(0), a.double_(1), a.bool_(2), a.bool_(3)));
  });
  reg("feature_dropout", [](const OpArgs& a) {
    return IValue(F::feature_dropout(a.tensor(0), a.double_(1), a.bool_(2), a.bool_(3)));
  });
  return true;
}();

}  // namespace
}  // namespace tc::jit
