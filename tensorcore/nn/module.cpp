#include "tensorcore/nn/module.h"

#include <algorithm>
#include <map>
#include <ostream>
#include <sstream>

#include "tensorcore/autograd/grad_mode.h"
#include "tensorcore/autograd/zero_grad.h"
#include "tensorcore/ops/copy.h"
#include "tensorcore/ops/creation.h"
#include "tensorcore/serialize/tensors/tensor_io.h"

namespace tc::nn {
namespace {

Tensor* find_entry(NamedTensors& list, const std::string& name) {
  for (auto& [n, t] : list)
    if (n == name) return &t;
  return nullptr;
}

void check_name(const std::string& owner, const std::string& kind, const std::string& name) {
  TC_CHECK(!name.empty(), owner, ".register_", kind, ": name must not be empty");
  TC_CHECK(name.find('.') == std::string::npos, owner, ".register_", kind, ": name '", name,
           "' must not contain '.'");
}

// Rebinds `t`'s TensorImpl to `src`'s memory (torch's param.data = src): every handle to this
// tensor sees the conversion.
void set_data(const Tensor& t, const Tensor& src) {
  TensorImpl* dst = t.impl();
  Tensor s = contiguous(src);
  dst->storage = s.impl()->storage;
  dst->sizes = s.sizes();
  dst->strides = s.strides();
  dst->offset = s.storage_offset();
  dst->dtype = s.dtype();
  dst->refresh_numel();
}

}  // namespace

Tensor& Module::register_parameter(const std::string& name, Tensor t, bool requires_grad) {
  check_name(type_name_, "parameter", name);
  TC_CHECK(find_entry(buffers_, name) == nullptr, type_name_, ".register_parameter: '", name,
           "' is already a buffer");
  if (t.defined()) {
    TC_CHECK_TYPE(t.is_floating_point() || !requires_grad, type_name_, ".register_parameter: '",
                  name, "' must be floating point to require grad, got ", dtype_name(t.dtype()));
    if (!t.is_leaf()) t = t.detach();
    t.requires_grad_(requires_grad);
  }
  if (Tensor* e = find_entry(params_, name)) return *e = t;
  params_.emplace_back(name, t);
  return params_.back().second;
}

Tensor& Module::register_buffer(const std::string& name, Tensor t, bool persistent) {
  check_name(type_name_, "buffer", name);
  TC_CHECK(find_entry(params_, name) == nullptr, type_name_, ".register_buffer: '", name,
           "' is already a parameter");
  if (persistent)
    non_persistent_.erase(name);
  else
    non_persistent_.insert(name);
  if (Tensor* e = find_entry(buffers_, name)) return *e = t;
  buffers_.emplace_back(name, t);
  return buffers_.back().second;
}

void Module::register_module_impl(const std::string& name, ModulePtr m) {
  check_name(type_name_, "module", name);
  TC_CHECK(m != nullptr, type_name_, ".register_module: module '", name, "' is empty");
  for (auto& [n, c] : children_)
    if (n == name) {
      c = std::move(m);
      return;
    }
  children_.emplace_back(name, std::move(m));
}

Tensor& Module::param(const std::string& name) {
  Tensor* e = find_entry(params_, name);
  TC_CHECK_INDEX(e != nullptr, type_name_, ": no parameter named '", name, "'");
  return *e;
}

Tensor& Module::buffer(const std::string& name) {
  Tensor* e = find_entry(buffers_, name);
  TC_CHECK_INDEX(e != nullptr, type_name_, ": no buffer named '", name, "'");
  return *e;
}

void Module::collect(NamedTensors& out, const std::string& prefix, bool params, bool bufs,
                     bool persistent_only, bool recurse) const {
  if (params)
    for (auto& [n, t] : params_)
      if (t.defined()) out.emplace_back(prefix + n, t);
  if (bufs)
    for (auto& [n, t] : buffers_)
      if (t.defined() && !(persistent_only && non_persistent_.count(n)))
        out.emplace_back(prefix + n, t);
  if (recurse)
    for (auto& [n, c] : children_)
      c->collect(out, prefix + n + ".", params, bufs, persistent_only, true);
}

NamedTensors Module::named_parameters(bool recurse) const {
  NamedTensors out;
  collect(out, "", true, false, false, recurse);
  // A tensor registered twice (weight tying) is listed once, as torch does.
  NamedTensors unique;
  std::set<const TensorImpl*> seen;
  for (auto& e : out)
    if (seen.insert(e.second.impl()).second) unique.push_back(e);
  return unique;
}

NamedTensors Module::named_buffers(bool recurse) const {
  NamedTensors out;
  collect(out, "", false, true, false, recurse);
  return out;
}

TensorList Module::parameters(bool recurse) const {
  TensorList out;
  for (auto& e : named_parameters(recurse)) out.push_back(e.second);
  return out;
}

TensorList Module::buffers(bool recurse) const {
  TensorList out;
  for (auto& e : named_buffers(recurse)) out.push_back(e.second);
  return out;
}

NamedModules Module::named_modules(const std::string& prefix, bool include_self) {
  NamedModules out;
  if (include_self) out.emplace_back(prefix, shared_from_this());
  for (auto& [n, c] : children_) {
    auto sub = c->named_modules(prefix.empty() ? n : prefix + "." + n, true);
    out.insert(out.end(), sub.begin(), sub.end());
  }
  return out;
}

std::vector<ModulePtr> Module::modules(bool include_self) {
  std::vector<ModulePtr> out;
  for (auto& e : named_modules("", include_self)) out.push_back(e.second);
  return out;
}

std::vector<ModulePtr> Module::children() const {
  std::vector<ModulePtr> out;
  for (auto& e : children_) out.push_back(e.second);
  return out;
}

void Module::train(bool on) {
  training_ = on;
  for (auto& [n, c] : children_) c->train(on);
}

void Module::zero_grad(bool set_to_none) { autograd::zero_grad(parameters(), set_to_none); }

void Module::requires_grad_(bool flag) {
  for (auto& p : parameters()) p.requires_grad_(flag);
}

void Module::convert(std::optional<Device> device, std::optional<DType> dtype) {
  autograd::NoGradGuard no_grad;
  auto conv = [&](const Tensor& t) {
    if (!t.defined()) return;
    DType dt = (dtype && t.is_floating_point()) ? *dtype : t.dtype();
    Device dev = device ? *device : t.device();
    if (dt == t.dtype() && dev == t.device()) return;
    Tensor converted = tc::to(t.detach(), dev, dt, /*copy=*/true);
    if (t.requires_grad()) t.set_grad(Tensor());
    set_data(t, converted);
  };
  for (auto& [n, t] : params_) conv(t);
  for (auto& [n, t] : buffers_) conv(t);
  for (auto& [n, c] : children_) c->convert(device, dtype);
}

void Module::to(Device device) { convert(device, std::nullopt); }
void Module::to(DType dtype) { convert(std::nullopt, dtype); }
void Module::to(Device device, DType dtype) { convert(device, dtype); }

void Module::apply(const std::function<void(Module&)>& fn) {
  for (auto& [n, c] : children_) c->apply(fn);
  fn(*this);
}

NamedTensors Module::state_dict() const {
  NamedTensors out;
  collect(out, "", true, true, true, true);
  for (auto& e : out) e.second = e.second.detach();
  return out;
}

void Module::load_state_dict(const NamedTensors& state, bool strict) {
  NamedTensors own;
  collect(own, "", true, true, true, true);
  std::map<std::string, const Tensor*> given;
  for (auto& [k, t] : state) given[k] = &t;
  std::vector<std::string> missing, unexpected, misshaped;
  std::set<std::string> own_keys;
  for (auto& [k, t] : own) {
    own_keys.insert(k);
    auto it = given.find(k);
    if (it == given.end()) {
      missing.push_back(k);
      continue;
    }
    const Tensor& src = *it->second;
    if (src.sizes() != t.sizes())
      misshaped.push_back(k + " (expected " + shape_str(t.sizes()) + ", got " +
                          shape_str(src.sizes()) + ")");
  }
  for (auto& [k, t] : state)
    if (!own_keys.count(k)) unexpected.push_back(k);
  auto join = [](const std::vector<std::string>& v) {
    std::string s;
    for (auto& x : v) s += (s.empty() ? "" : ", ") + x;
    return s;
  };
  if (!misshaped.empty() || (strict && (!missing.empty() || !unexpected.empty()))) {
    std::ostringstream msg;
    msg << "Error(s) in loading state_dict for " << type_name_ << ":";
    if (strict && !missing.empty()) msg << " missing keys: " << join(missing) << ".";
    if (strict && !unexpected.empty()) msg << " unexpected keys: " << join(unexpected) << ".";
    if (!misshaped.empty()) msg << " size mismatch: " << join(misshaped) << ".";
    throw ValueError(msg.str());
  }
  autograd::NoGradGuard no_grad;
  for (auto& [k, t] : own) {
    auto it = given.find(k);
    if (it == given.end()) continue;
    Tensor dst = t;
    copy_(dst, *it->second);
  }
}

void Module::save(const std::filesystem::path& path) const {
  if (path.extension() == ".safetensors")
    serialize::save_safetensors(state_dict(), path);
  else
    serialize::save(state_dict(), path);
}

void Module::load(const std::filesystem::path& path, bool strict) {
  load_state_dict(serialize::load(path), strict);
}

void Module::pretty_print(std::ostream& os) const {
  os << type_name_ << (children_.empty() ? "()" : "");
}

void Module::print_tree(std::ostream& os, int indent) const {
  pretty_print(os);
  if (children_.empty()) return;
  os << "(\n";
  for (auto& [n, c] : children_) {
    os << std::string(indent + 2, ' ') << "(" << n << "): ";
    c->print_tree(os, indent + 2);
    os << "\n";
  }
  os << std::string(indent, ' ') << ")";
}

std::string Module::str() const {
  std::ostringstream os;
  print_tree(os, 0);
  return os.str();
}

std::ostream& operator<<(std::ostream& os, const Module& m) { return os << m.str(); }

// ---- hooks ----
void HookHandle::remove() {
  auto store = store_.lock();
  if (!store) return;
  std::erase_if(store->pre, [&](auto& e) { return e.first == id_; });
  std::erase_if(store->post, [&](auto& e) { return e.first == id_; });
}

HookHandle Module::register_forward_pre_hook(ForwardPreHook hook) {
  TC_CHECK(bool(hook), type_name_, ".register_forward_pre_hook: the hook is empty");
  if (!hooks_) hooks_ = std::make_shared<detail::HookStore>();
  int64_t id = hooks_->next_id++;
  hooks_->pre.emplace_back(id, std::move(hook));
  return HookHandle(hooks_, id);
}

HookHandle Module::register_forward_hook(ForwardHook hook) {
  TC_CHECK(bool(hook), type_name_, ".register_forward_hook: the hook is empty");
  if (!hooks_) hooks_ = std::make_shared<detail::HookStore>();
  int64_t id = hooks_->next_id++;
  hooks_->post.emplace_back(id, std::move(hook));
  return HookHandle(hooks_, id);
}

// Iterate over a snapshot so a hook may remove itself (or register others) while running.
void Module::run_forward_pre_hooks(TensorList& inputs) {
  if (!hooks_) return;
  auto hooks = hooks_->pre;
  for (auto& [id, h] : hooks) h(*this, inputs);
}

void Module::run_forward_hooks(const TensorList& inputs, TensorList& outputs) {
  if (!hooks_) return;
  auto hooks = hooks_->post;
  for (auto& [id, h] : hooks) h(*this, inputs, outputs);
}

// ---- clone ----
ModulePtr Module::clone() const {
  throw NotImplementedError(
      type_name_ +
      ".clone(): this module does not implement clone(); derive its Impl from "
      "tc::nn::Cloneable<Impl> and register its members in reset(), or override clone()");
}

void Module::copy_state_from(const Module& src) {
  autograd::NoGradGuard no_grad;
  auto copy_list = [&](NamedTensors& dst, const NamedTensors& from, const char* kind) {
    for (auto& [name, t] : from) {
      Tensor* own = find_entry(dst, name);
      TC_CHECK(own != nullptr, type_name_, ".copy_state_from: ", src.name(), " has a ", kind, " '",
               name, "' that this module lacks");
      if (!t.defined() || !own->defined()) {
        TC_CHECK(t.defined() == own->defined(), type_name_, ".copy_state_from: ", kind, " '", name,
                 "' is defined in only one of the two modules");
        continue;
      }
      set_data(*own, tc::clone(t.detach()));
      if (own->is_leaf()) {
        own->requires_grad_(t.requires_grad());
        Tensor g = t.grad();
        own->set_grad(g.defined() ? tc::clone(g) : Tensor());
      }
    }
  };
  copy_list(params_, src.params_, "parameter");
  copy_list(buffers_, src.buffers_, "buffer");
  non_persistent_ = src.non_persistent_;
  training_ = src.training_;
  for (auto& [name, c] : src.children_) {
    auto it =
        std::find_if(children_.begin(), children_.end(), [&](auto& e) { return e.first == name; });
    TC_CHECK(it != children_.end(), type_name_, ".copy_state_from: ", src.name(),
             " has a submodule '", name, "' that this module lacks");
    it->second->copy_state_from(*c);
  }
}

}  // namespace tc::nn
