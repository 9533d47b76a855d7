// Runtime adapters for the core's tensor ops, named after the bindings they were traced through
// (python/src/elementwise.cpp, core_ops.cpp, reduce.cpp, indexing.cpp, linalg.cpp). Each unpacks
// its arguments the way its binding does and calls the same C++ function.
#include "tensorcore/jit/op_registry.h"
#include "tensorcore/nnfused/activation.h"
#include "tensorcore/tensor.h"

namespace tc::jit {
namespace {

// Registers `fn` under the function name and the method name (def_fn_and_method bindings).
void fn_and_method(const std::string& name, const OpFn& fn) {
  register_op("_C." + name, fn);
  register_op("Tensor." + name, fn);
}

IValue pair(const std::pair<Tensor, Tensor>& p) { return IValue::tuple({p.first, p.second}); }

DimList dims_arg(const OpArgs& a, size_t i) {
  if (!a.has(i)) return {};
  std::vector<int64_t> d = a.ints(i);
  return DimList(d.begin(), d.end());
}

tc::TensorIndex index_item(const IValue& v) {
  if (v.is_none()) return tc::None;
  if (v.is_ellipsis()) return tc::Ellipsis;
  if (v.is_bool()) return v.to_bool();
  if (v.is_int()) return v.to_int();
  if (v.is_slice()) {
    const Slice& s = v.to_slice();
    return tc::Slice(s.start, s.stop, s.step);
  }
  if (v.is_tensor()) {
    const Tensor& t = v.to_tensor();
    if (t.dim() == 0 && is_integral(t.dtype()) && !t.requires_grad()) return t.item().to<int64_t>();
    return t;
  }
  if (v.is_list()) {
    std::vector<int64_t> ints = v.to_ints();
    return from_vector(ints, {int64_t(ints.size())});
  }
  throw TypeError(std::string("invalid index of type ") + v.kind_name());
}

IndexList index_list(const IValue& v) {
  IndexList out;
  if (v.is_tuple()) {
    for (const IValue& x : v.items()) out.push_back(index_item(x));
  } else {
    out.push_back(index_item(v));
  }
  return out;
}

// Tensor.to(*args, **kwargs): dtype, device, (device, dtype), or another tensor's both.
IValue tensor_to(const OpArgs& a) {
  Tensor t = a.tensor(0);
  std::optional<DType> dtype;
  std::optional<Device> device;
  bool copy = false;
  auto take = [&](const IValue& v) {
    if (v.is_dtype()) dtype = v.to_dtype();
    if (v.is_device() || v.is_string()) device = v.to_device();
    if (v.is_tensor()) {
      dtype = v.to_tensor().dtype();
      device = v.to_tensor().device();
    }
  };
  if (a.size() > 1)
    for (const IValue& v : a[1].items()) take(v);
  if (a.size() > 2 && a[2].is_dict())
    for (const auto& [k, v] : a[2].dict_items()) {
      if (k == "dtype" || k == "device" || k == "other") take(v);
      if (k == "copy") copy = v.to_bool();
    }
  if (device) t = to_device(t, *device, copy && !dtype);
  if (dtype) t = to_dtype(t, *dtype, copy);
  return t;
}

// The shape of a factory call: zeros(2, 3) or zeros((2, 3)) (recorded as the *args tuple).
Shape factory_shape(const OpArgs& a) { return a.shape(0); }
TensorOptions factory_options(const OpArgs& a, size_t dtype_i, size_t device_i) {
  TensorOptions o;
  if (a.has(dtype_i)) o.dtype_ = a[dtype_i].to_dtype();
  if (a.has(device_i)) o.device_ = a[device_i].to_device();
  return o;
}

#define TC_JIT_UNARY(name)                                                             \
  fn_and_method(#name, [](const OpArgs& a) { return IValue(tc::name(a.tensor(0))); }); \
  register_op("Tensor." #name "_", [](const OpArgs& a) {                               \
    Tensor t = a.tensor(0);                                                            \
    return IValue(tc::name##_(t));                                                     \
  });
#define TC_JIT_BINARY(name)                                      \
  fn_and_method(#name, [](const OpArgs& a) {                     \
    return IValue(tc::name(a.tensor(0), a.tensor_or_number(1))); \
  });                                                            \
  register_op("Tensor." #name "_", [](const OpArgs& a) {         \
    Tensor t = a.tensor(0);                                      \
    return IValue(tc::name##_(t, a.tensor_or_number(1)));        \
  });

void register_elementwise() {
  TC_UNARY_OPS(TC_JIT_UNARY)
  TC_BINARY_OPS(TC_JIT_BINARY)
  for (const char* n : {"neg", "negative"})
    fn_and_method(n, [](const OpArgs& a) { return IValue(neg(a.tensor(0))); });
  fn_and_method("exp", [](const OpArgs& a) { return IValue(exp(a.tensor(0))); });
  fn_and_method("log", [](const OpArgs& a) { return IValue(log(a.tensor(0))); });
  fn_and_method("sqrt", [](const OpArgs& a) { return IValue(sqrt(a.tensor(0))); });
  register_op("Tensor.__neg__", [](const OpArgs& a) { return IValue(neg(a.tensor(0))); });
  register_op("Tensor.__abs__", [](const OpArgs& a) { return IValue(abs(a.tensor(0))); });
  register_op("Tensor.__pos__", [](const OpArgs& a) { return IValue(a.tensor(0)); });

  using Bin = Tensor (*)(const Tensor&, const Tensor&);
  static const std::pair<const char*, Bin> operators[] = {
      {"add", [](const Tensor& x, const Tensor& y) { return add(x, y); }},
      {"sub", [](const Tensor& x, const Tensor& y) { return sub(x, y); }},
      {"mul", [](const Tensor& x, const Tensor& y) { return mul(x, y); }},
      {"truediv", [](const Tensor& x, const Tensor& y) { return div(x, y); }},
      {"floordiv", [](const Tensor& x, const Tensor& y) { return div(x, y, "floor"); }},
      {"pow", [](const Tensor& x, const Tensor& y) { return pow(x, y); }},
      {"mod", [](const Tensor& x, const Tensor& y) { return remainder(x, y); }},
      {"matmul", [](const Tensor& x, const Tensor& y) { return matmul(x, y); }},
      {"and", [](const Tensor& x, const Tensor& y) { return bitwise_and(x, y); }},
      {"or", [](const Tensor& x, const Tensor& y) { return bitwise_or(x, y); }},
      {"xor", [](const Tensor& x, const Tensor& y) { return bitwise_xor(x, y); }},
  };
  for (const auto& [name, fn] : operators) {
    Bin f = fn;
    register_op(std::string("Tensor.__") + name + "__",
                [f](const OpArgs& a) { return IValue(f(a.tensor(0), a.tensor_or_number(1))); });
    register_op(std::string("Tensor.__r") + name + "__",
                [f](const OpArgs& a) { return IValue(f(a.tensor_or_number(1), a.tensor(0))); });
  }
  for (const auto& [name, fn] : std::initializer_list<std::pair<const char*, Bin>>{
           {"eq", &eq}, {"ne", &ne}, {"lt", &lt}, {"le", &le}, {"gt", &gt}, {"ge", &ge}}) {
    Bin f = fn;
    register_op(std::string("Tensor.__") + name + "__",
                [f](const OpArgs& a) { return IValue(f(a.tensor(0), a.tensor_or_number(1))); });
  }
  using IBin = Tensor& (*)(Tensor&, const Tensor&);
  static const std::pair<const char*, IBin> inplace[] = {
      {"iadd", [](Tensor& x, const Tensor& y) -> Tensor& { return add_(x, y); }},
      {"isub", [](Tensor& x, const Tensor& y) -> Tensor& { return sub_(x, y); }},
      {"imul", [](Tensor& x, const Tensor& y) -> Tensor& { return mul_(x, y); }},
      {"itruediv", [](Tensor& x, const Tensor& y) -> Tensor& { return div_(x, y); }},
  };
  for (const auto& [name, fn] : inplace) {
    IBin f = fn;
    register_op(std::string("Tensor.__") + name + "__", [f](const OpArgs& a) {
      Tensor t = a.tensor(0);
      return IValue(f(t, a.tensor_or_number(1)));
    });
  }
  auto alpha = [](const OpArgs& a) { return a.has(2) ? a.scalar(2) : Scalar(1); };
  for (const char* n : {"add"})
    fn_and_method(n, [alpha](const OpArgs& a) {
      return IValue(add(a.tensor(0), a.tensor_or_number(1), alpha(a)));
    });
  for (const char* n : {"sub", "subtract"})
    fn_and_method(n, [alpha](const OpArgs& a) {
      return IValue(sub(a.tensor(0), a.tensor_or_number(1), alpha(a)));
    });
  register_op("Tensor.add_", [alpha](const OpArgs& a) {
    Tensor t = a.tensor(0);
    return IValue(add_(t, a.tensor_or_number(1), alpha(a)));
  });
  register_op("Tensor.sub_", [alpha](const OpArgs& a) {
    Tensor t = a.tensor(0);
    return IValue(sub_(t, a.tensor_or_number(1), alpha(a)));
  });
  for (const char* n : {"mul", "multiply"})
    fn_and_method(n,
                  [](const OpArgs& a) { return IValue(mul(a.tensor(0), a.tensor_or_number(1))); });
  register_op("Tensor.mul_", [](const OpArgs& a) {
    Tensor t = a.tensor(0);
    return IValue(mul_(t, a.tensor_or_number(1)));
  });
  for (const char* n : {"div", "divide"})
    fn_and_method(n, [](const OpArgs& a) {
      return IValue(div(a.tensor(0), a.tensor_or_number(1), a.has(2) ? a.str(2) : ""));
    });
  register_op("Tensor.div_", [](const OpArgs& a) {
    Tensor t = a.tensor(0);
    return IValue(div_(t, a.tensor_or_number(1), a.has(2) ? a.str(2) : ""));
  });
  fn_and_method("true_divide",
                [](const OpArgs& a) { return IValue(div(a.tensor(0), a.tensor_or_number(1))); });
  fn_and_method("floor_divide", [](const OpArgs& a) {
    return IValue(div(a.tensor(0), a.tensor_or_number(1), "floor"));
  });
  register_op("_C.pow", [](const OpArgs& a) {
    if (a[0].is_tensor()) return IValue(pow(a.tensor(0), a.tensor_or_number(1)));
    return IValue(pow(a.scalar(0), a.tensor(1)));
  });
  register_op("Tensor.pow",
              [](const OpArgs& a) { return IValue(pow(a.tensor(0), a.tensor_or_number(1))); });
  for (const char* n : {"clamp", "clip"}) {
    auto clamp_fn = [](const OpArgs& a, bool inplace) {
      Tensor t = a.tensor(0);
      if ((a.has(1) && a[1].is_tensor()) || (a.has(2) && a[2].is_tensor())) {
        Tensor lo = a.has(1) ? a.tensor_or_number(1) : Tensor();
        Tensor hi = a.has(2) ? a.tensor_or_number(2) : Tensor();
        return IValue(inplace ? clamp_(t, lo, hi) : clamp(t, lo, hi));
      }
      return IValue(inplace ? clamp_(t, a.opt_scalar(1), a.opt_scalar(2))
                            : clamp(t, a.opt_scalar(1), a.opt_scalar(2)));
    };
    fn_and_method(n, [clamp_fn](const OpArgs& a) { return clamp_fn(a, false); });
    register_op(std::string("Tensor.") + n + "_",
                [clamp_fn](const OpArgs& a) { return clamp_fn(a, true); });
  }
  fn_and_method("clamp_min", [](const OpArgs& a) {
    return IValue(clamp(a.tensor(0), a.opt_scalar(1), std::nullopt));
  });
  fn_and_method("clamp_max", [](const OpArgs& a) {
    return IValue(clamp(a.tensor(0), std::nullopt, a.opt_scalar(1)));
  });
  register_op("_C.where", [](const OpArgs& a) {
    TC_CHECK(a.has(1) && a.has(2), "where(condition) with one argument is not traceable");
    return IValue(where(a.tensor(0), a.tensor_or_number(1), a.tensor_or_number(2)));
  });
  register_op("Tensor.where", [](const OpArgs& a) {
    return IValue(where(a.tensor(1), a.tensor(0), a.tensor_or_number(2)));
  });
}

void register_shape() {
  register_op("Tensor.view", [](const OpArgs& a) {
    if (a.size() > 1 && a[1].is_tuple() && a[1].items().size() == 1 && a[1].items()[0].is_dtype())
      return IValue(view(a.tensor(0), a[1].items()[0].to_dtype()));
    return IValue(view(a.tensor(0), a.shape(1)));
  });
  register_op("Tensor.reshape",
              [](const OpArgs& a) { return IValue(reshape(a.tensor(0), a.shape(1))); });
  register_op("_C.reshape",
              [](const OpArgs& a) { return IValue(reshape(a.tensor(0), a.ints(1))); });
  register_op("Tensor.expand",
              [](const OpArgs& a) { return IValue(expand(a.tensor(0), a.shape(1))); });
  register_op("Tensor.expand_as",
              [](const OpArgs& a) { return IValue(expand_as(a.tensor(0), a.tensor(1))); });
  register_op("Tensor.permute",
              [](const OpArgs& a) { return IValue(permute(a.tensor(0), a.shape(1))); });
  register_op("_C.permute",
              [](const OpArgs& a) { return IValue(permute(a.tensor(0), a.ints(1))); });
  for (const char* n : {"transpose", "swapaxes", "swapdims"})
    fn_and_method(
        n, [](const OpArgs& a) { return IValue(transpose(a.tensor(0), a.int_(1), a.int_(2))); });
  fn_and_method("t", [](const OpArgs& a) { return IValue(t(a.tensor(0))); });
  fn_and_method("unsqueeze",
                [](const OpArgs& a) { return IValue(unsqueeze(a.tensor(0), a.int_(1))); });
  fn_and_method("squeeze", [](const OpArgs& a) {
    if (!a.has(1)) return IValue(squeeze(a.tensor(0)));
    if (a[1].is_int()) return IValue(squeeze(a.tensor(0), a.int_(1)));
    return IValue(squeeze(a.tensor(0), a.ints(1)));
  });
  fn_and_method("flatten", [](const OpArgs& a) {
    return IValue(flatten(a.tensor(0), a.has(1) ? a.int_(1) : 0, a.has(2) ? a.int_(2) : -1));
  });
  fn_and_method("select",
                [](const OpArgs& a) { return IValue(select(a.tensor(0), a.int_(1), a.int_(2))); });
  fn_and_method("narrow", [](const OpArgs& a) {
    return IValue(narrow(a.tensor(0), a.int_(1), a.int_(2), a.int_(3)));
  });
  register_op("Tensor.contiguous", [](const OpArgs& a) { return IValue(contiguous(a.tensor(0))); });
  fn_and_method("clone", [](const OpArgs& a) { return IValue(clone(a.tensor(0))); });
  register_op("Tensor.detach", [](const OpArgs& a) { return IValue(a.tensor(0).detach()); });
  register_op("_C.cat",
              [](const OpArgs& a) { return IValue(cat(a.tensors(0), a.has(1) ? a.int_(1) : 0)); });
  register_op("_C.concat", *find_op("_C.cat"));
  register_op("_C.stack", [](const OpArgs& a) {
    return IValue(stack(a.tensors(0), a.has(1) ? a.int_(1) : 0));
  });
  fn_and_method("unbind", [](const OpArgs& a) {
    IValueList parts;
    for (Tensor& t : unbind(a.tensor(0), a.has(1) ? a.int_(1) : 0)) parts.push_back(t);
    return IValue::tuple(std::move(parts));
  });
  fn_and_method("chunk", [](const OpArgs& a) {
    IValueList parts;
    for (Tensor& t : chunk(a.tensor(0), a.int_(1), a.has(2) ? a.int_(2) : 0)) parts.push_back(t);
    return IValue::tuple(std::move(parts));
  });
  fn_and_method("split", [](const OpArgs& a) {
    IValueList parts;
    const int64_t dim = a.has(2) ? a.int_(2) : 0;
    std::vector<Tensor> out = a[1].is_int() ? split(a.tensor(0), a.int_(1), dim)
                                            : split_with_sizes(a.tensor(0), a.ints(1), dim);
    for (Tensor& t : out) parts.push_back(t);
    return IValue::tuple(std::move(parts));
  });
  register_op("Tensor.__getitem__",
              [](const OpArgs& a) { return IValue(index(a.tensor(0), index_list(a[1]))); });
  register_op("Tensor.__setitem__", [](const OpArgs& a) {
    Tensor self = a.tensor(0);
    Tensor value =
        a[2].is_tensor() ? a.tensor(2) : scalar_tensor(a.scalar(2), self.dtype(), self.device());
    index_put_(self, index_list(a[1]), value);
    return IValue();
  });
  register_op("Tensor.to", tensor_to);
  register_op("Tensor.cpu",
              [](const OpArgs& a) { return IValue(to_device(a.tensor(0), Device())); });
  register_op("Tensor.cuda", [](const OpArgs& a) {
    return IValue(to_device(a.tensor(0), Device(DeviceType::CUDA, a.has(1) ? int(a.int_(1)) : -1)));
  });
  static const std::pair<const char*, DType> casts[] = {
      {"float", DType::Float32},     {"double", DType::Float64}, {"half", DType::Float16},
      {"bfloat16", DType::BFloat16}, {"int", DType::Int32},      {"long", DType::Int64},
      {"short", DType::Int16},       {"char", DType::Int8},      {"byte", DType::UInt8},
      {"bool", DType::Bool}};
  for (const auto& [name, dt] : casts) {
    DType d = dt;
    register_op(std::string("Tensor.") + name,
                [d](const OpArgs& a) { return IValue(to_dtype(a.tensor(0), d)); });
  }
}

void register_reduce_and_linalg() {
  for (const char* n : {"sum", "mean"}) {
    const bool is_sum = std::string(n) == "sum";
    fn_and_method(n, [is_sum](const OpArgs& a) {
      DimList d = dims_arg(a, 1);
      const bool keep = a.has(2) && a.bool_(2);
      auto dt = a.opt_dtype(3);
      return IValue(is_sum ? sum(a.tensor(0), d, keep, dt) : mean(a.tensor(0), d, keep, dt));
    });
  }
  for (const char* n : {"argmax", "argmin"}) {
    const bool is_max = std::string(n) == "argmax";
    fn_and_method(n, [is_max](const OpArgs& a) {
      const bool keep = a.has(2) && a.bool_(2);
      return IValue(is_max ? argmax(a.tensor(0), a.opt_int(1), keep)
                           : argmin(a.tensor(0), a.opt_int(1), keep));
    });
  }
  for (const char* n : {"max", "min"}) {
    const bool is_max = std::string(n) == "max";
    fn_and_method(n, [is_max](const OpArgs& a) {
      if (a.has(1) && a[1].is_tensor())
        return IValue(is_max ? maximum(a.tensor(0), a.tensor(1))
                             : minimum(a.tensor(0), a.tensor(1)));
      if (!a.has(1)) return IValue(is_max ? max(a.tensor(0)) : min(a.tensor(0)));
      const bool keep = a.has(2) && a.bool_(2);
      return pair(is_max ? max(a.tensor(0), a.int_(1), keep) : min(a.tensor(0), a.int_(1), keep));
    });
  }
  fn_and_method("topk", [](const OpArgs& a) {
    return pair(topk(a.tensor(0), a.int_(1), a.has(2) ? a.int_(2) : -1, !a.has(3) || a.bool_(3),
                     !a.has(4) || a.bool_(4)));
  });
  fn_and_method("argsort", [](const OpArgs& a) {
    return IValue(argsort(a.tensor(0), a.has(1) ? a.int_(1) : -1, a.has(2) && a.bool_(2),
                          a.has(3) && a.bool_(3)));
  });
  fn_and_method("matmul", [](const OpArgs& a) { return IValue(matmul(a.tensor(0), a.tensor(1))); });
  fn_and_method("mm", [](const OpArgs& a) { return IValue(mm(a.tensor(0), a.tensor(1))); });
  fn_and_method("bmm", [](const OpArgs& a) { return IValue(bmm(a.tensor(0), a.tensor(1))); });
  fn_and_method("addmm", [](const OpArgs& a) {
    return IValue(addmm(a.tensor(0), a.tensor(1), a.tensor(2), a.has(3) ? a.scalar(3) : Scalar(1),
                        a.has(4) ? a.scalar(4) : Scalar(1)));
  });
  register_op("_C._nnfused.softmax",
              [](const OpArgs& a) { return IValue(nnfused::softmax(a.tensor(0), a.int_(1))); });
  register_op("_C._nnfused.log_softmax",
              [](const OpArgs& a) { return IValue(nnfused::log_softmax(a.tensor(0), a.int_(1))); });
  register_op("_C._nnfused.gelu",
              [](const OpArgs& a) { return IValue(nnfused::gelu(a.tensor(0), a.bool_(1))); });
}

void register_creation() {
  for (const char* n : {"zeros", "ones"}) {
    const bool is_zeros = std::string(n) == "zeros";
    register_op(std::string("_C.") + n, [is_zeros](const OpArgs& a) {
      TensorOptions o = factory_options(a, 1, 2);
      return IValue(is_zeros ? zeros(factory_shape(a), o) : ones(factory_shape(a), o));
    });
  }
  for (const char* n : {"zeros_like", "ones_like"}) {
    const bool is_zeros = std::string(n) == "zeros_like";
    register_op(std::string("_C.") + n, [is_zeros](const OpArgs& a) {
      std::optional<TensorOptions> o;
      if (a.has(1) || a.has(2)) o = factory_options(a, 1, 2);
      return IValue(is_zeros ? zeros_like(a.tensor(0), o) : ones_like(a.tensor(0), o));
    });
  }
  register_op("_C.arange", [](const OpArgs& a) {
    std::optional<TensorOptions> o;
    if (a.has(3) || a.has(4)) o = factory_options(a, 3, 4);
    if (!a.has(1)) return IValue(arange(a.scalar(0), o));
    return IValue(arange(a.scalar(0), a.scalar(1), a.has(2) ? a.scalar(2) : Scalar(1), o));
  });
}

const bool registered = [] {
  register_elementwise();
  register_shape();
  register_reduce_and_linalg();
  register_creation();
  return true;
}();

}  // namespace
}  // namespace tc::jit
