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
#include <type_traits>
#include <utility>
#include <vector>

#include "tensorcore/core/tensor.h"

namespace tc::nn {

using NamedTensors = std::vector<std::pair<std::string, Tensor>>;
class Module;
using ModulePtr = std::shared_ptr<Module>;
using NamedModules = std::vector<std::pair<std::string, ModulePtr>>;

class Module : public std::enable_shared_from_this<Module> {
 public:
  explicit Module(std::string type_name = "Module") : type_name_(std::move(type_name)) {}
  virtual ~Module() = default;
  Module(const Module&) = delete;
  Module& operator=(const Module&) = delete;

  // The class name used by pretty printing and error messages ("Linear").
  const std::string& name() const { return type_name_; }

  // Registration returns a handle sharing the stored tensor (members may keep it). Registering
  // an existing name replaces the entry. An undefined tensor registers an absent entry (bias=false),
  // which is skipped by parameters() and state_dict() as torch does with None.
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

 protected:
  void register_module_impl(const std::string& name, ModulePtr m);
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
};

std::ostream& operator<<(std::ostream& os, const Module& m);

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
  explicit ModuleHolder(Args&&... args) : impl_(std::make_shared<Impl>(std::forward<Args>(args)...)) {}

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
    return get()->forward(std::forward<Args>(args)...);
  }

 private:
  std::shared_ptr<Impl> impl_;
};

}  // namespace tc::nn

// Declares `Name` as a ModuleHolder of `NameImpl`.
#define TC_MODULE(Name)                                       \
  class Name : public ::tc::nn::ModuleHolder<Name##Impl> {   \
   public:                                                    \
    using ::tc::nn::ModuleHolder<Name##Impl>::ModuleHolder;   \
  }
