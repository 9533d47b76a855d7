// A pass over every bound function after all bindings are registered (found by the API fuzzer,
// tests/python/apifuzz):
//
// 1. Required Tensor parameters (no default, or one other than None) refuse None, except the
//    few where None means "absent" (none_is_meaningful).
//    The Tensor caster turns None into an undefined Tensor so that `bias=None` works; without
//    this pass `tc.sum(None)` reached the op with an undefined tensor and crashed the
//    interpreter. pybind11 then answers with its "incompatible function arguments" TypeError,
//    which names the op and lists the accepted signatures.
// 2. Each implementation is wrapped so that the C++ library exceptions that still carry no
//    context (pybind11::cast_error from a `.cast<T>()` in a binding body, std::bad_alloc,
//    std::length_error, std::out_of_range, std::invalid_argument) reach Python as the matching
//    exception with the op's name and what was expected, instead of "Unable to cast Python
//    instance of type <class 'str'> to C++ type 'long'" or "vector::_M_range_check".
// 3. Tensor's in-place methods (add_, exp_, copy_, scatter_, __iadd__, ...) refuse a `self`
//    whose elements alias each other (an expanded tensor), as torch does (mem_overlap.h);
//    masked_fill_ / index_fill_ / index_put_ warn instead and fill_ / zero_ / tril_ / triu_ are
//    allowed, as in torch 1.13. This is the user-facing entry only: C++ callers of the same ops
//    (kernels, backward formulas) are not checked.
#include <cctype>
#include <cstring>
#include <new>
#include <regex>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <vector>

#include "bind.h"
#include "jit_hook.h"
#include "mem_overlap.h"
#include "profiler_hook.h"
#include "tensorcore/linalg/linalg.h"

namespace tc::python {
namespace {

using Impl = py::handle (*)(py::detail::function_call&);

// What an in-place Tensor method does when `self` overlaps itself internally.
enum class SelfOverlap : uint8_t { kAllow, kRaise, kWarn };

struct Guarded {
  Impl impl;
  SelfOverlap self_overlap;
  const std::string* profiled_name;  // tc.profiler's op name, null: not an op (profiler.cpp)
};

std::unordered_map<const py::detail::function_record*, Guarded>& original_impls() {
  static auto* m = new std::unordered_map<const py::detail::function_record*, Guarded>();
  return *m;
}

// torch 1.13's behaviour for an expanded `self`, by method name.
SelfOverlap self_overlap_policy(const py::detail::function_record& rec) {
  if (!rec.is_method || !rec.name || rec.scope.ptr() != py::type::of<TensorImpl>().ptr())
    return SelfOverlap::kAllow;
  const std::string name = rec.name;
  static const char* const kInplaceDunders[] = {
      "__iadd__", "__isub__",    "__imul__",    "__itruediv__", "__ifloordiv__",
      "__idiv__", "__imod__",    "__ipow__",    "__iand__",     "__ior__",
      "__ixor__", "__ilshift__", "__irshift__", "__imatmul__"};
  for (const char* d : kInplaceDunders)
    if (name == d) return SelfOverlap::kRaise;
  if (name.size() < 2 || name.back() != '_' || name.front() == '_') return SelfOverlap::kAllow;
  // Metadata-only methods, and the fills torch allows on an expanded tensor (every alias gets
  // the same value, so the result is well defined).
  static const char* const kAllowed[] = {
      "requires_grad_", "resize_", "resize_as_", "detach_",   "set_",      "share_memory_",
      "as_strided_",    "t_",      "transpose_", "swapdims_", "swapaxes_", "squeeze_",
      "unsqueeze_",     "fill_",   "zero_",      "tril_",     "triu_"};
  for (const char* a : kAllowed)
    if (name == a) return SelfOverlap::kAllow;
  static const char* const kWarned[] = {"masked_fill_", "index_fill_", "index_put_"};
  for (const char* w : kWarned)
    if (name == w) return SelfOverlap::kWarn;
  return SelfOverlap::kRaise;
}

void check_self_overlap(py::detail::function_call& call, SelfOverlap policy) {
  if (call.args.empty()) return;
  py::handle self = call.args[0];
  if (!py::isinstance<TensorImpl>(self)) return;
  const Tensor t = self.cast<Tensor>();
  if (!has_internal_overlap(t)) return;
  if (policy == SelfOverlap::kRaise) throw Error(kInternalOverlapMessage);
  const std::string msg = std::string("Use of ") + call.func.name +
                          " on expanded tensors is deprecated. Please clone() the tensor before "
                          "performing this operation. This also applies to advanced indexing "
                          "e.g. tensor[mask] = scalar";
  if (PyErr_WarnEx(PyExc_UserWarning, msg.c_str(), 1) < 0) throw py::error_already_set();
}

std::string op_name(const py::detail::function_record& rec) {
  std::string name = rec.name ? rec.name : "<function>";
  if (rec.is_method && rec.scope) {
    py::object qual = py::getattr(rec.scope, "__name__", py::none());
    if (!qual.is_none()) return py::str(qual).cast<std::string>() + "." + name + "()";
  }
  return name + "()";
}

// "Unable to cast Python instance of type <class 'str'> to C++ type 'long'"
//   -> "expected an int, got str"
std::string describe_cast_error(const std::string& what) {
  static const std::regex re(
      R"(Unable to cast Python instance of type <class '([^']*)'> to C\+\+ type '([^']*)')");
  std::smatch m;
  if (!std::regex_search(what, m, re)) return what;
  const std::string cpp = m[2].str();
  std::string expected = "'" + cpp + "'";
  if (cpp == "long" || cpp == "int" || cpp == "long long" || cpp == "unsigned long")
    expected = "an int (that fits in 64 bits)";
  else if (cpp == "double" || cpp == "float")
    expected = "a float";
  else if (cpp == "bool")
    expected = "a bool";
  else if (cpp == "tc::DType")
    expected = "a dtype (e.g. tensorcore.float32)";
  else if (cpp == "tc::Device")
    expected = "a device (e.g. 'cpu')";
  else if (cpp.find("basic_string") != std::string::npos)
    expected = "a str";
  else if (cpp.find("TensorImpl") != std::string::npos || cpp == "tc::Tensor")
    expected = "a Tensor";
  else if (cpp == "tc::Scalar")
    expected = "a number";
  else if (cpp.find("Generator") != std::string::npos)
    expected = "a tensorcore.Generator";
  else if (cpp.rfind("std::vector<long", 0) == 0 || cpp.rfind("std::vector<int", 0) == 0)
    expected = "a sequence of ints";
  else if (cpp.rfind("std::vector<double", 0) == 0)
    expected = "a sequence of floats";
  else if (cpp.rfind("std::vector<tc::Tensor", 0) == 0)
    expected = "a sequence of Tensors";
  else if (cpp.find("std::") != std::string::npos || cpp.find("tc::") != std::string::npos)
    expected = "a value of another type (see the signature in the docstring)";
  return "expected " + expected + ", got " + m[1].str();
}

// A library error raised deep inside (e.g. by the allocator's size check) does not know which
// op the user called; name it unless the message already does.
std::string with_op(const py::detail::function_record& rec, const std::exception& e) {
  const std::string msg = e.what();
  const char* name = rec.name;
  while (name && *name == '_') ++name;  // private bindings (_interpolate) back a public op
  if (name && msg.find(name) != std::string::npos) return msg;
  return op_name(rec) + ": " + msg;
}

[[noreturn]] void raise_py(PyObject* type, const std::string& msg) {
  PyErr_SetString(type, msg.c_str());
  throw py::error_already_set();
}

py::handle guarded_impl(py::detail::function_call& call) {
  const Guarded& orig = original_impls().at(&call.func);
  OpSpan span(orig.profiled_name, call);  // tc.profiler's op hook: one relaxed flag check
  try {
    if (orig.self_overlap != SelfOverlap::kAllow) check_self_overlap(call, orig.self_overlap);
    py::handle result = tl_jit_trace ? jit_traced_call(orig.impl, call) : orig.impl(call);
    if (result.ptr() == PYBIND11_TRY_NEXT_OVERLOAD) span.cancel();
    return result;
  } catch (const DecodeError& e) {
    throw DecodeError(with_op(call.func, e));
  } catch (const IndexError& e) {
    throw IndexError(with_op(call.func, e));
  } catch (const TypeError& e) {
    throw TypeError(with_op(call.func, e));
  } catch (const NotImplementedError& e) {
    throw NotImplementedError(with_op(call.func, e));
  } catch (const ValueError& e) {
    throw ValueError(with_op(call.func, e));
  } catch (const linalg::LinAlgError& e) {
    throw linalg::LinAlgError(with_op(call.func, e));
  } catch (const Error& e) {
    throw Error(with_op(call.func, e));
  } catch (const py::reference_cast_error&) {
    throw;  // pybind11 uses it to try the next overload
  } catch (const py::cast_error& e) {
    raise_py(PyExc_TypeError, op_name(call.func) + ": " + describe_cast_error(e.what()));
  } catch (const std::bad_alloc&) {
    raise_py(PyExc_MemoryError, op_name(call.func) + ": out of memory (the allocation failed)");
  } catch (const std::length_error& e) {
    raise_py(PyExc_ValueError, op_name(call.func) + ": requested size is too large");
  } catch (const std::out_of_range& e) {
    raise_py(PyExc_IndexError, op_name(call.func) + ": index out of range (" + e.what() + ")");
  } catch (const std::invalid_argument& e) {
    raise_py(PyExc_ValueError, op_name(call.func) + ": invalid argument (" + e.what() + ")");
  }
}

// The top-level parameter list of a pybind11 signature "(a: Tensor, *, b: int = 1) -> Tensor".
std::vector<std::string> signature_params(const char* sig) {
  std::vector<std::string> out;
  if (!sig || sig[0] != '(') return out;
  int depth = 0;
  std::string cur;
  for (const char* p = sig + 1; *p; ++p) {
    const char c = *p;
    if (depth == 0 && c == ')') break;
    if (c == '(' || c == '[' || c == '{') ++depth;
    if (c == ')' || c == ']' || c == '}') --depth;
    if (c == ',' && depth == 0) {
      out.push_back(cur);
      cur.clear();
      continue;
    }
    if (!(cur.empty() && c == ' ')) cur += c;
  }
  if (!cur.empty()) out.push_back(cur);
  return out;
}

bool is_required_tensor_param(const std::string& param) {
  // "name: Tensor" exactly (optional tensors are spelled "name: Tensor = None").
  const auto colon = param.find(": ");
  return colon != std::string::npos && param.compare(colon + 2, std::string::npos, "Tensor") == 0;
}

// Required tensor parameters for which None means "absent" (batch_norm without running stats,
// an RNN without an initial state, amp's optional bookkeeping tensors).
bool none_is_meaningful(const char* name) {
  static const char* const kNames[] = {
      "running_mean", "running_var",    "hx",  "h0", "c0", "new_state", "found_inf",
      "inv_scale",    "growth_tracker", "data"};
  for (const char* n : kNames)
    if (std::strcmp(n, name) == 0) return true;
  return false;
}

void harden_record(py::detail::function_record* rec) {
  for (; rec; rec = rec->next) {
    if (original_impls().count(rec)) continue;
    std::vector<std::string> params;
    for (const std::string& p : signature_params(rec->signature))
      if (p != "*" && p != "/") params.push_back(p);
    if (rec->args.empty() && !rec->has_args && !rec->has_kwargs && params.size() == rec->nargs) {
      // Bound without py::arg: give each parameter a record so that `none` can be set. The names
      // are the ones pybind11 shows in the signature (self, arg0, arg1, ...).
      for (size_t i = 0; i < params.size(); ++i) {
        const std::string name = params[i].substr(0, params[i].find(':'));
        rec->args.emplace_back(strdup(name.c_str()), nullptr, py::handle(), true, true);
      }
    }
    bool private_scope = false;
    if (rec->scope && PyModule_Check(rec->scope.ptr())) {
      const char* mod = PyModule_GetName(rec->scope.ptr());
      private_scope = mod && std::strstr(mod, "._C._") != nullptr;
      if (!mod) PyErr_Clear();
    }
    for (auto& arg : rec->args) {
      if (!arg.name || none_is_meaningful(arg.name)) continue;
      // Unnamed parameters after the first (arg1, arg2, ...) of private submodules (_C._vision,
      // ...) are left alone: their Python wrappers pass None for "absent" (deform_conv2d's bias).
      if (private_scope && &arg != &rec->args.front() && std::strncmp(arg.name, "arg", 3) == 0 &&
          std::isdigit(static_cast<unsigned char>(arg.name[3])))
        continue;
      const std::string prefix = std::string(arg.name) + ": ";
      for (const std::string& p : params) {
        if (p.compare(0, prefix.size(), prefix) != 0) continue;
        if (is_required_tensor_param(p) && !(arg.value && arg.value.is_none())) arg.none = false;
        break;
      }
    }
    original_impls().emplace(rec,
                             Guarded{rec->impl, self_overlap_policy(*rec), profiled_op_name(*rec)});
    rec->impl = &guarded_impl;
  }
}

py::detail::function_record* record_of(py::handle h) {
  h = py::detail::get_function(h);  // unwraps instancemethod / method
  if (!h || !PyCFunction_Check(h.ptr())) return nullptr;
  PyObject* self = PyCFunction_GET_SELF(h.ptr());
  if (!self || !PyCapsule_CheckExact(self)) return nullptr;
  auto cap = py::reinterpret_borrow<py::capsule>(self);
  if (!py::detail::is_function_record_capsule(cap)) return nullptr;
  return cap.get_pointer<py::detail::function_record>();
}

void harden_namespace(py::handle dict, const std::string& module_prefix, int depth) {
  for (auto item : py::reinterpret_borrow<py::dict>(dict)) {
    py::handle v = item.second;
    if (PyModule_Check(v.ptr())) {
      const std::string name = py::str(py::getattr(v, "__name__", py::str(""))).cast<std::string>();
      if (depth < 4 && name.rfind(module_prefix, 0) == 0)
        harden_namespace(PyModule_GetDict(v.ptr()), module_prefix, depth + 1);
      continue;
    }
    if (PyType_Check(v.ptr())) {
      const std::string mod =
          py::str(py::getattr(v, "__module__", py::str(""))).cast<std::string>();
      if (depth < 4 && mod.rfind(module_prefix, 0) == 0)
        harden_namespace(reinterpret_cast<PyTypeObject*>(v.ptr())->tp_dict, module_prefix,
                         depth + 1);
      continue;
    }
    if (PyObject_TypeCheck(v.ptr(), &PyStaticMethod_Type)) {
      py::object f = py::getattr(v, "__func__", py::none());
      if (auto* rec = record_of(f)) harden_record(rec);
      continue;
    }
    if (PyObject_TypeCheck(v.ptr(), &PyProperty_Type)) continue;  // getters take only self
    if (auto* rec = record_of(v)) harden_record(rec);
  }
}

}  // namespace

void harden_bindings(py::module_& m) {
  const std::string prefix = py::str(m.attr("__name__")).cast<std::string>();
  harden_namespace(m.attr("__dict__"), prefix, 0);
}

}  // namespace tc::python
