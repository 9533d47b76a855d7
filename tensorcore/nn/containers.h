#pragma once
// Containers: Sequential (Tensor -> Tensor chain, optionally named entries), ModuleList and
// ModuleDict. Children are registered under their index / name, so state_dict keys read
// "0.weight", "features.conv1.weight", ... exactly as in torch.
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "tensorcore/nn/module.h"

namespace tc::nn {

// A module together with its Tensor -> Tensor forward, type-erased (what Sequential stores).
// Built from a ModuleHolder, a std::shared_ptr<M> whose M has forward(const Tensor&), or a plain
// function (wrapped in a parameterless "Functional" module).
struct AnyModule {
  AnyModule() = default;
  ModulePtr module;
  std::function<Tensor(const Tensor&)> forward;  // runs the module's forward hooks too
  // The same kind of entry around another module of the same type (used by clone()).
  std::function<AnyModule(ModulePtr)> rebind;

  template <typename H, typename = decltype(std::declval<const H&>().ptr()->forward(
                            std::declval<const Tensor&>()))>
  AnyModule(const H& holder) : AnyModule(holder.ptr()) {}
  template <typename M>
  AnyModule(std::shared_ptr<M> m)
      : module(m),
        forward([p = m.get()](const Tensor& x) -> Tensor { return call(*p, x); }),
        rebind([](ModulePtr c) { return AnyModule(std::dynamic_pointer_cast<M>(c)); }) {}
  AnyModule(std::function<Tensor(const Tensor&)> fn);
  // A module of a type known only at run time (language bindings): `forward(module, x)` runs it.
  using ErasedForward = std::function<Tensor(Module&, const Tensor&)>;
  static AnyModule erased(ModulePtr m, ErasedForward forward);
  template <typename F>
  requires(std::is_invocable_r_v<Tensor, F, const Tensor&> && !requires(F f) { f.ptr(); } &&
           !std::is_same_v<std::decay_t<F>, std::function<Tensor(const Tensor&)>>) AnyModule(F fn)
      : AnyModule(std::function<Tensor(const Tensor&)>(std::move(fn))) {}
};

class SequentialImpl : public Module {
 public:
  ModulePtr clone() const override;
  SequentialImpl() : Module("Sequential") {}
  SequentialImpl(std::initializer_list<AnyModule> modules);
  SequentialImpl(std::initializer_list<std::pair<std::string, AnyModule>> named);

  void push_back(AnyModule m);  // named by its index
  void push_back(const std::string& name, AnyModule m);
  Tensor forward(const Tensor& x);
  size_t size() const { return entries_.size(); }
  bool is_empty() const { return entries_.empty(); }
  const ModulePtr& operator[](size_t i) const;
  template <typename M>
  std::shared_ptr<M> ptr(size_t i) const {
    return std::dynamic_pointer_cast<M>((*this)[i]);
  }

 private:
  std::vector<AnyModule> entries_;
};

class Sequential : public ModuleHolder<SequentialImpl> {
 public:
  using ModuleHolder<SequentialImpl>::ModuleHolder;
  Sequential() : ModuleHolder(std::make_shared<SequentialImpl>()) {}
  Sequential(std::initializer_list<AnyModule> modules)
      : ModuleHolder(std::make_shared<SequentialImpl>(modules)) {}
  Sequential(std::initializer_list<std::pair<std::string, AnyModule>> named)
      : ModuleHolder(std::make_shared<SequentialImpl>(named)) {}
};

class ModuleListImpl : public Module {
 public:
  ModulePtr clone() const override;
  ModuleListImpl() : Module("ModuleList") {}
  template <typename H>
  void push_back(const H& holder) {
    append(holder.ptr());
  }
  template <typename M>
  void push_back(std::shared_ptr<M> m) {
    append(std::move(m));
  }
  size_t size() const { return items_.size(); }
  const ModulePtr& operator[](size_t i) const;
  template <typename M>
  std::shared_ptr<M> ptr(size_t i) const {
    return std::dynamic_pointer_cast<M>((*this)[i]);
  }
  auto begin() const { return items_.begin(); }
  auto end() const { return items_.end(); }

 private:
  void append(ModulePtr m);
  std::vector<ModulePtr> items_;
};
TC_MODULE(ModuleList);

class ModuleDictImpl : public Module {
 public:
  ModulePtr clone() const override;
  ModuleDictImpl() : Module("ModuleDict") {}
  template <typename H>
  void insert(const std::string& key, const H& holder) {
    put(key, holder.ptr());
  }
  template <typename M>
  void insert(const std::string& key, std::shared_ptr<M> m) {
    put(key, std::move(m));
  }
  bool contains(const std::string& key) const;
  ModulePtr operator[](const std::string& key) const;
  std::vector<std::string> keys() const;
  size_t size() const { return named_children().size(); }

 private:
  void put(const std::string& key, ModulePtr m);
};
TC_MODULE(ModuleDict);

// Parameters registered under their index ("0", "1", ...), like torch.nn.ParameterList.
class ParameterListImpl : public Module {
 public:
  ModulePtr clone() const override;
  ParameterListImpl() : Module("ParameterList") {}
  explicit ParameterListImpl(const TensorList& params);
  void append(const Tensor& param, bool requires_grad = true);
  size_t size() const { return items_.size(); }
  const Tensor& operator[](size_t i) const;
  void pretty_print(std::ostream& os) const override;

 private:
  TensorList items_;
};
TC_MODULE(ParameterList);

}  // namespace tc::nn
