// tensorcore.autograd.Function: a graph node whose backward calls the Python class's
// static backward(ctx, *grads). Saved tensors live in the node as SavedTensors (version checked,
// outputs stored without their grad_fn), so ctx holds no reference cycle through the graph.
#include "bind.h"
#include "tensorcore/autograd/custom_function.h"

namespace tc::python {
namespace {

struct PyFunctionNode final : autograd::CustomNodeBase {
  py::object ctx;
  py::object backward_fn;
  autograd::AutogradContext saved;  // only saved_ / node_ / name_ are used
  bool materialize = true;

  ~PyFunctionNode() override {
    if (!Py_IsInitialized()) {  // interpreter gone: leak rather than crash
      ctx.release();
      backward_fn.release();
      return;
    }
    py::gil_scoped_acquire gil;
    ctx = py::object();
    backward_fn = py::object();
  }

  TensorList apply(TensorList&& grads) override {
    TensorList g = prepare_grads(std::move(grads), materialize);
    TensorList per_arg;
    {
      py::gil_scoped_acquire gil;
      TensorList unpacked = saved.get_saved_variables();
      ctx.attr("_saved_unpacked") = py::cast(unpacked).cast<py::tuple>();
      py::tuple args(g.size() + 1);
      args[0] = ctx;
      for (size_t i = 0; i < g.size(); ++i) args[i + 1] = py::cast(g[i]);
      py::object res;
      try {
        res = backward_fn(*args);
      } catch (...) {
        ctx.attr("_saved_unpacked") = py::none();
        throw;
      }
      ctx.attr("_saved_unpacked") = py::none();
      if (is_tensor(res) || res.is_none()) {
        per_arg.push_back(res.is_none() ? Tensor() : res.cast<Tensor>());
      } else {
        for (auto x : res) {
          if (x.is_none())
            per_arg.push_back(Tensor());
          else if (is_tensor(x))
            per_arg.push_back(x.cast<Tensor>());
          else
            throw TypeError(detail::concat("function ", node_name,
                                           " returned a gradient that is not a Tensor or None"));
        }
      }
    }
    return finish_grads(per_arg);
  }
  void release_saved() override {
    for (auto& s : saved.saved_) s.reset();
  }
};

// Wires a node for a Python Function call; returns the outputs (tensors now have grad_fn).
py::list attach_function(const std::string& name, py::object ctx, py::object backward_fn,
                         py::sequence args, py::sequence outputs, py::sequence to_save,
                         py::sequence non_diff, bool materialize) {
  auto node = std::make_shared<PyFunctionNode>();
  node->node_name = name;
  node->ctx = ctx;
  node->backward_fn = backward_fn;
  node->materialize = materialize;
  node->saved.name_ = name;
  TensorList inputs;
  int64_t pos = 0;
  for (auto a : args) {
    if (is_tensor(a)) {
      inputs.push_back(a.cast<Tensor>());
      node->tensor_arg_pos.push_back(pos);
    }
    ++pos;
  }
  node->num_args = size_t(pos);
  TensorList outs;
  std::vector<bool> is_t;
  for (auto o : outputs) {
    is_t.push_back(is_tensor(o));
    outs.push_back(is_tensor(o) ? o.cast<Tensor>() : Tensor());
  }
  std::vector<const TensorImpl*> nd;
  for (auto t : non_diff)
    if (is_tensor(t)) nd.push_back(t.cast<Tensor>().impl());
  autograd::attach_custom_node(node, inputs, outs, nd);
  node->saved.node_ = node;
  for (auto s : to_save) node->saved.to_save_.push_back(s.is_none() ? Tensor() : s.cast<Tensor>());
  autograd::save_custom_tensors(&node->saved, outs);
  py::list result;
  size_t i = 0;
  for (auto o : outputs) {
    if (is_t[i])
      result.append(py::cast(outs[i]));
    else
      result.append(o);
    ++i;
  }
  return result;
}

void bind_autograd_function(py::module_& m, TensorClass&) {
  py::module_ ag = m.def_submodule("_autograd_function");
  ag.def("_attach_function", &attach_function, py::arg("name"), py::arg("ctx"), py::arg("backward"),
         py::arg("args"), py::arg("outputs"), py::arg("to_save"), py::arg("non_differentiable"),
         py::arg("materialize_grads"));
}

Registrar registrar(bind_autograd_function);

}  // namespace
}  // namespace tc::python
