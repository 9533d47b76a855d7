#pragma once
// tc::nn::Module: the libtorch-style C++ frontend base class. A module owns named parameters,
// buffers and submodules (in registration order); names, state_dict keys and their order match
// torch.nn.Module, so a state_dict saved here loads into the equivalent Python module.
//
//   struct NetImpl : tc::nn::Module {
//     NetImpl() { fc = register_module("fc", tc::nn::Linear(4, 2)); }
//     tc::Tensor forward(const tc::Tensor& x) { return fc(x); }
//     tc::nn::Linear fc{nullptr};
//   };
//   TC_MODULE(Net);   // Net: a shared handle to a NetImpl (ModuleHolder)
#include <filesystem>
#include <functional>
#include <initializer_list>
#include <iosfwd>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "tensorcore/core/tensor.h"

namespace tc::nn {

using NamedTensors = std::vector<std::pair<std::string, Tensor>>;
class Module;
using ModulePtr = std::shared_ptr<Module>;
using NamedModules = std::vector<std::pair<std::string, ModulePtr>>;

// Forward hooks see the Tensor arguments of forward (in order; other arguments pass through
// untouched) and its Tensor results (a Tensor, or the Tensors of a pair / tuple / vector, flattened
// depth-first). A pre-hook may replace inputs; a forward hook may replace outputs (same count).
using ForwardPreHook = std::function<void(Module& module, TensorList& inputs)>;
using ForwardHook =
    std::function<void(Module& module, const TensorList& inputs, TensorList& outputs)>;

namespace detail {
struct HookStore {
  int64_t next_id = 0;
  std::vector<std::pair<int64_t, ForwardPreHook>> pre;
  std::vector<std::pair<int64_t, ForwardHook>> post;
};
}  // namespace detail

// Returned by register_forward_(pre_)hook; remove() unregisters (a no-op once the module is gone
// or the hook already removed).
class HookHandle {
 public:
  HookHandle() = default;
  HookHandle(std::weak_ptr<detail::HookStore> store, int64_t id)
      : store_(std::move(store)), id_(id) {}
  void remove();

 private:
  std::weak_ptr<detail::HookStore> store_;
  int64_t id_ = -1;
};

class Module : public std::enable_shared_from_this<Module> {
 public:
  explicit Module(std::string type_name = "Module") : type_name_(std::move(type_name)) {}
  virtual ~Module() = default;
  Module(const Module&) = delete;
  Module& operator=(const Module&) = delete;

  // The class name used by pretty printing and error messages ("Linear").
  const std::string& name() const { return type_name_; }

  // Registration returns a handle sharing the stored tensor (members may keep it). Registering
  // an existing name replaces the entry. An undefined tensor registers an absent entry
  // (bias=false), which is skipped by parameters() and state_dict() as torch does with None.
  Tensor& register_parameter(const std::string& name, Tensor t, bool requires_grad = true);
  Tensor& register_buffer(const std::string& name, Tensor t, bool persistent = true);
  template <typename M>
  std::shared_ptr<M> register_module(const std::string& name, std::shared_ptr<M> m) {
    register_module_impl(name, m);
    return m;
  }
  // ModuleHolder overload (anything with ptr()).
  template <typename H, typename = decltype(std::declval<H>().ptr())>
  H register_module(const std::string& name, H holder) {
    register_module_impl(name, holder.ptr());
    return holder;
  }

  NamedTensors named_parameters(bool recurse = true) const;
  NamedTensors named_buffers(bool recurse = true) const;
  TensorList parameters(bool recurse = true) const;
  TensorList buffers(bool recurse = true) const;
  // Pre-order, this module first (named ""), dotted names.
  NamedModules named_modules(const std::string& prefix = "", bool include_self = true);
  NamedModules named_children() const { return children_; }
  std::vector<ModulePtr> modules(bool include_self = true);
  std::vector<ModulePtr> children() const;

  virtual void train(bool on = true);
  void eval() { train(false); }
  bool is_training() const { return training_; }
  void zero_grad(bool set_to_none = true);
  void requires_grad_(bool flag = true);
  // Converts every parameter and buffer in place (the tensor handles held by members stay
  // valid, like torch's param.data = ...); gradients are dropped. to(dtype) converts only
  // floating tensors, as torch.
  void to(Device device);
  void to(DType dtype);
  void to(Device device, DType dtype);
  // fn on every submodule (children first) then on this one, like torch's Module.apply.
  void apply(const std::function<void(Module&)>& fn);

  // Parameters then persistent buffers of each module, pre-order, dotted keys (torch's order).
  NamedTensors state_dict() const;
  // Copies values in place (no grad). strict: every key must match; any missing, unexpected or
  // mis-shaped key throws one ValueError listing all of them. Mis-shaped keys throw either way.
  void load_state_dict(const NamedTensors& state, bool strict = true);
  // ".safetensors" files are written as safetensors, anything else as torch .pt (torch.load
  // reads it into an OrderedDict-compatible dict). load() detects the format from the bytes.
  void save(const std::filesystem::path& path) const;
  void load(const std::filesystem::path& path, bool strict = true);

  // One-line description, e.g. "Linear(in_features=4, out_features=2, bias=true)".
  virtual void pretty_print(std::ostream& os) const;
  // The torch-style tree of the module and its children.
  std::string str() const;

  // Accessors for a registered entry by (non-dotted) name; throw IndexError if absent.
  Tensor& param(const std::string& name);
  Tensor& buffer(const std::string& name);

  // Hooks run when forward is called through a holder (`lin(x)`), a Sequential, or
  // tc::nn::call(module, args...); calling `impl->forward(x)` directly bypasses them, as calling
  // torch's Module.forward does. Pre-hooks run in registration order before forward, forward
  // hooks after it.
  HookHandle register_forward_pre_hook(ForwardPreHook hook);
  HookHandle register_forward_hook(ForwardHook hook);
  bool has_forward_hooks() const {
    return hooks_ && (!hooks_->pre.empty() || !hooks_->post.empty());
  }
  void run_forward_pre_hooks(TensorList& inputs);
  void run_forward_hooks(const TensorList& inputs, TensorList& outputs);

  // A deep copy: same structure and options, parameters/buffers (and their gradients and
  // requires_grad flags) copied into new storage, same training mode; hooks are not copied.
  // Built-in layers and containers implement it; a user module derives from Cloneable<Impl>.
  virtual ModulePtr clone() const;
  // Copies every parameter and buffer (persistent or not, recursively, with gradients and
  // requires_grad) of `src`, a module of the same structure, into this one's tensors in place
  // (member handles see the copies), plus the training flags. Used by clone().
  void copy_state_from(const Module& src);

 protected:
  void register_module_impl(const std::string& name, ModulePtr m);
  // For Cloneable: name and training mode only; registries start empty.
  Module(const std::string& type_name, bool training)
      : training_(training), type_name_(type_name) {}
  bool training_ = true;

 private:
  void collect(NamedTensors& out, const std::string& prefix, bool params, bool bufs,
               bool persistent_only, bool recurse) const;
  void convert(std::optional<Device> device, std::optional<DType> dtype);
  void print_tree(std::ostream& os, int indent) const;

  std::string type_name_;
  NamedTensors params_;
  NamedTensors buffers_;
  std::set<std::string> non_persistent_;
  NamedModules children_;
  std::shared_ptr<detail::HookStore> hooks_;
};

std::ostream& operator<<(std::ostream& os, const Module& m);

// libtorch's pattern for cloneable user modules: register everything in reset() (and call it
// from the constructor); clone() copy-constructs the Impl (members that are options are copied),
// calls reset() on the copy to build fresh parameters and submodules, then copies the values.
//
//   struct NetImpl : tc::nn::Cloneable<NetImpl> {
//     NetImpl() : Cloneable("Net") { reset(); }
//     void reset() override { fc = register_module("fc", tc::nn::Linear(4, 2)); }
//     ...
//   };
template <typename Derived>
class Cloneable : public Module {
 public:
  using Module::Module;
  virtual void reset() = 0;
  ModulePtr clone() const override {
    auto copy = std::make_shared<Derived>(static_cast<const Derived&>(*this));
    copy->reset();
    copy->copy_state_from(*this);
    return copy;
  }

 protected:
  Cloneable(const Cloneable& other) : Module(other.name(), other.is_training()) {}
};

namespace detail {

template <typename T>
struct IsTupleLike : std::false_type {};
template <typename A, typename B>
struct IsTupleLike<std::pair<A, B>> : std::true_type {};
template <typename... T>
struct IsTupleLike<std::tuple<T...>> : std::true_type {};

template <typename T>
void flatten_tensors(TensorList& out, const T& v) {
  if constexpr (std::is_same_v<T, Tensor>) {
    out.push_back(v);
  } else if constexpr (std::is_same_v<T, TensorList>) {
    out.insert(out.end(), v.begin(), v.end());
  } else if constexpr (IsTupleLike<T>::value) {
    std::apply([&](const auto&... e) { (flatten_tensors(out, e), ...); }, v);
  }
}

template <typename T>
void unflatten_tensors(const TensorList& in, size_t& i, T& v) {
  if constexpr (std::is_same_v<T, Tensor>) {
    v = in[i++];
  } else if constexpr (std::is_same_v<T, TensorList>) {
    for (auto& e : v) e = in[i++];
  } else if constexpr (IsTupleLike<T>::value) {
    std::apply([&](auto&... e) { (unflatten_tensors(in, i, e), ...); }, v);
  }
}

}  // namespace detail

// Calls impl.forward(args...) with the module's forward hooks around it (what holders and
// Sequential do).
template <typename Impl, typename... Args>
auto call(Impl& impl, Args&&... args) {
  if (!impl.has_forward_hooks()) return impl.forward(std::forward<Args>(args)...);
  std::tuple<std::decay_t<Args>...> copies(std::forward<Args>(args)...);
  TensorList inputs;
  detail::flatten_tensors(inputs, copies);
  const size_t n_in = inputs.size();
  impl.run_forward_pre_hooks(inputs);
  TC_CHECK(inputs.size() == n_in, impl.name(),
           ": a forward pre-hook changed the number of inputs from ", n_in, " to ", inputs.size());
  size_t i = 0;
  detail::unflatten_tensors(inputs, i, copies);
  auto out = std::apply([&](auto&... a) { return impl.forward(a...); }, copies);
  TensorList outputs;
  detail::flatten_tensors(outputs, out);
  const size_t n_out = outputs.size();
  impl.run_forward_hooks(inputs, outputs);
  TC_CHECK(outputs.size() == n_out, impl.name(),
           ": a forward hook changed the number of outputs from ", n_out, " to ", outputs.size());
  i = 0;
  detail::unflatten_tensors(outputs, i, out);
  return out;
}

// A shared handle to a module implementation, like torch::nn::ModuleHolder: `Linear l(4, 2)`
// makes a LinearImpl; `Linear l{nullptr}` is empty; l(x) calls l->forward(x).
template <typename Impl>
class ModuleHolder {
 public:
  using ContainedType = Impl;
  ModuleHolder(std::nullptr_t) {}
  ModuleHolder(std::shared_ptr<Impl> p) : impl_(std::move(p)) {}
  template <typename... Args>
  requires std::is_constructible_v<Impl, Args...>
  explicit ModuleHolder(Args&&... args)
      : impl_(std::make_shared<Impl>(std::forward<Args>(args)...)) {}

  Impl* operator->() const { return get(); }
  Impl& operator*() const { return *get(); }
  Impl* get() const {
    TC_CHECK(impl_ != nullptr, "ModuleHolder: accessing an empty (nullptr) module");
    return impl_.get();
  }
  const std::shared_ptr<Impl>& ptr() const { return impl_; }
  bool is_empty() const { return impl_ == nullptr; }
  explicit operator bool() const { return impl_ != nullptr; }
  template <typename... Args>
  decltype(auto) operator()(Args&&... args) const {
    return call(*get(), std::forward<Args>(args)...);
  }
  // A deep copy (Module::clone): `Linear copy = lin.clone();`
  std::shared_ptr<Impl> clone() const {
    auto c = std::dynamic_pointer_cast<Impl>(get()->clone());
    TC_CHECK(c != nullptr, "ModuleHolder::clone: clone() of ", get()->name(),
             " returned another type");
    return c;
  }

 private:
  std::shared_ptr<Impl> impl_;
};

}  // namespace tc::nn

// Declares `Name` as a ModuleHolder of `NameImpl`.
#define TC_MODULE(Name)                                     \
  class Name : public ::tc::nn::ModuleHolder<Name##Impl> {  \
   public:                                                  \
    using ::tc::nn::ModuleHolder<Name##Impl>::ModuleHolder; \
  }
