#include "tensorcore/nn/containers.h"

#include <ostream>

namespace tc::nn {
namespace {

// A parameterless module running a plain function (torch::nn::Functional).
class FunctionalImpl : public Module {
 public:
  explicit FunctionalImpl(std::function<Tensor(const Tensor&)> fn)
      : Module("Functional"), fn_(std::move(fn)) {}
  Tensor forward(const Tensor& x) { return fn_(x); }
  ModulePtr clone() const override {
    auto c = std::make_shared<FunctionalImpl>(fn_);
    c->copy_state_from(*this);
    return c;
  }

 private:
  std::function<Tensor(const Tensor&)> fn_;
};

}  // namespace

AnyModule::AnyModule(std::function<Tensor(const Tensor&)> fn)
    : AnyModule(std::make_shared<FunctionalImpl>(std::move(fn))) {}

AnyModule AnyModule::erased(ModulePtr m, ErasedForward fwd) {
  TC_CHECK(m != nullptr && fwd, "AnyModule::erased: module and forward must be set");
  AnyModule a;
  a.module = m;
  a.forward = [p = m.get(), fwd](const Tensor& x) { return fwd(*p, x); };
  a.rebind = [fwd](ModulePtr c) { return erased(std::move(c), fwd); };
  return a;
}

SequentialImpl::SequentialImpl(std::initializer_list<AnyModule> modules) : SequentialImpl() {
  for (auto& m : modules) push_back(m);
}

SequentialImpl::SequentialImpl(std::initializer_list<std::pair<std::string, AnyModule>> named)
    : SequentialImpl() {
  for (auto& [n, m] : named) push_back(n, m);
}

void SequentialImpl::push_back(AnyModule m) {
  push_back(std::to_string(entries_.size()), std::move(m));
}

void SequentialImpl::push_back(const std::string& name, AnyModule m) {
  for (auto& [n, c] : named_children())
    TC_CHECK(n != name, "Sequential: an entry named '", name, "' already exists");
  register_module(name, m.module);
  entries_.push_back(std::move(m));
}

Tensor SequentialImpl::forward(const Tensor& x) {
  Tensor y = x;
  for (auto& e : entries_) y = e.forward(y);
  return y;
}

const ModulePtr& SequentialImpl::operator[](size_t i) const {
  TC_CHECK_INDEX(i < entries_.size(), "Sequential: index ", i, " is out of range for ",
                 entries_.size(), " entries");
  return entries_[i].module;
}

ModulePtr SequentialImpl::clone() const {
  auto c = std::make_shared<SequentialImpl>();
  auto names = named_children();
  for (size_t i = 0; i < entries_.size(); ++i)
    c->push_back(names[i].first, entries_[i].rebind(entries_[i].module->clone()));
  c->copy_state_from(*this);
  return c;
}

ModulePtr ModuleListImpl::clone() const {
  auto c = std::make_shared<ModuleListImpl>();
  for (auto& m : items_) c->append(m->clone());
  c->copy_state_from(*this);
  return c;
}

ModulePtr ModuleDictImpl::clone() const {
  auto c = std::make_shared<ModuleDictImpl>();
  for (auto& [k, m] : named_children()) c->put(k, m->clone());
  c->copy_state_from(*this);
  return c;
}

ModulePtr ParameterListImpl::clone() const {
  auto c = std::make_shared<ParameterListImpl>();
  for (auto& t : items_) c->append(t.detach(), t.requires_grad());
  c->copy_state_from(*this);  // new storage, gradients
  return c;
}

void ModuleListImpl::append(ModulePtr m) {
  register_module(std::to_string(items_.size()), m);
  items_.push_back(std::move(m));
}

const ModulePtr& ModuleListImpl::operator[](size_t i) const {
  TC_CHECK_INDEX(i < items_.size(), "ModuleList: index ", i, " is out of range for ", items_.size(),
                 " modules");
  return items_[i];
}

void ModuleDictImpl::put(const std::string& key, ModulePtr m) {
  register_module(key, std::move(m));
}

bool ModuleDictImpl::contains(const std::string& key) const {
  for (auto& [n, c] : named_children())
    if (n == key) return true;
  return false;
}

ModulePtr ModuleDictImpl::operator[](const std::string& key) const {
  for (auto& [n, c] : named_children())
    if (n == key) return c;
  throw IndexError("ModuleDict: no module named '" + key + "'");
}

std::vector<std::string> ModuleDictImpl::keys() const {
  std::vector<std::string> out;
  for (auto& [n, c] : named_children()) out.push_back(n);
  return out;
}

ParameterListImpl::ParameterListImpl(const TensorList& params) : ParameterListImpl() {
  for (auto& p : params) append(p);
}

void ParameterListImpl::append(const Tensor& param, bool requires_grad) {
  TC_CHECK(param.defined(), "ParameterList: cannot append an undefined tensor");
  items_.push_back(register_parameter(std::to_string(items_.size()), param, requires_grad));
}

const Tensor& ParameterListImpl::operator[](size_t i) const {
  TC_CHECK_INDEX(i < items_.size(), "ParameterList: index ", i, " is out of range for ",
                 items_.size(), " parameters");
  return items_[i];
}

void ParameterListImpl::pretty_print(std::ostream& os) const {
  os << "ParameterList(";
  for (size_t i = 0; i < items_.size(); ++i)
    os << (i ? ", " : "") << "(" << i << "): " << shape_str(items_[i].sizes());
  os << ")";
}

}  // namespace tc::nn
