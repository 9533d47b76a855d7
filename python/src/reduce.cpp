// Python bindings for reductions, scans, sorting and searching (sum/mean live in core_ops.cpp).
#include <cmath>
#include <limits>

#include "bind.h"
#include "tensorcore/ops/reduce.h"
#include "tensorcore/ops/sort.h"

namespace tc::python {
namespace {

py::object named(const char* type, const std::pair<Tensor, Tensor>& r) {
  // Imported per call (a sys.modules lookup): a static py::object would outlive the interpreter.
  return py::module_::import("tensorcore.return_types").attr(type)(r.first, r.second);
}

std::optional<DType> opt_dtype(const py::object& o) {
  if (o.is_none()) return {};
  return o.cast<DType>();
}

std::optional<int64_t> opt_int(const py::object& o) {
  if (o.is_none()) return {};
  return o.cast<int64_t>();
}

int64_t single_dim(const py::object& o, const char* op) {
  if (PyLong_Check(o.ptr())) return o.cast<int64_t>();
  DimList d = to_dims(o);
  TC_CHECK_TYPE(d.size() == 1, op, "(): dim must be a single int");
  return d[0];
}

// torch's var/std argument forms: (dim, unbiased, keepdim), (unbiased) or correction=.
struct VarArgs {
  DimList dims;
  double correction = 1;
};
VarArgs var_args(const py::object& dim, const py::object& unbiased, const py::object& correction) {
  VarArgs r;
  if (PyBool_Check(dim.ptr())) {
    r.correction = dim.cast<bool>() ? 1 : 0;
  } else {
    r.dims = to_dims(dim);
  }
  if (!unbiased.is_none()) r.correction = unbiased.cast<bool>() ? 1 : 0;
  if (!correction.is_none()) r.correction = correction.cast<double>();
  return r;
}

double norm_order(const py::object& p) {
  if (p.is_none()) return 2;
  if (py::isinstance<py::str>(p)) {
    std::string s = p.cast<std::string>();
    TC_CHECK(s == "fro", "norm(): only p='fro' is supported among string orders, got '", s, "'");
    return 2;
  }
  return p.cast<double>();
}

py::object minmax(const Tensor& a, const py::object& dim, bool keepdim, bool is_max) {
  const char* name = is_max ? "max" : "min";
  if (dim.is_none()) return py::cast(is_max ? max(a) : min(a));
  if (is_tensor(dim)) {
    py::module_ m = py::module_::import("tensorcore._C");
    const char* bin = is_max ? "maximum" : "minimum";
    if (!py::hasattr(m, bin))
      throw TypeError(detail::concat(name, "(input, other): binary form needs tc.", bin,
                                     ", which is not available"));
    return m.attr(bin)(a, dim);
  }
  return named(name, is_max ? max(a, single_dim(dim, name), keepdim)
                            : min(a, single_dim(dim, name), keepdim));
}

py::object unique_result(const std::tuple<Tensor, Tensor, Tensor>& r, bool inv, bool counts) {
  if (!inv && !counts) return py::cast(std::get<0>(r));
  if (inv && counts) return py::make_tuple(std::get<0>(r), std::get<1>(r), std::get<2>(r));
  return py::make_tuple(std::get<0>(r), inv ? std::get<1>(r) : std::get<2>(r));
}

void bind_reduce_ops(py::module_& m, TensorClass& cls) {
  auto kw = py::kw_only();
  def_fn_and_method(
      m, cls, "prod",
      [](const Tensor& a, py::object dim, bool keepdim, py::object dtype) {
        return prod(a, dim.is_none() ? std::optional<int64_t>() : single_dim(dim, "prod"), keepdim,
                    opt_dtype(dtype));
      },
      py::arg("dim") = py::none(), py::arg("keepdim") = false, kw, py::arg("dtype") = py::none());
  def_fn_and_method(
      m, cls, "amax",
      [](const Tensor& a, py::object dim, bool keepdim) { return amax(a, to_dims(dim), keepdim); },
      py::arg("dim") = py::tuple(), py::arg("keepdim") = false);
  def_fn_and_method(
      m, cls, "amin",
      [](const Tensor& a, py::object dim, bool keepdim) { return amin(a, to_dims(dim), keepdim); },
      py::arg("dim") = py::tuple(), py::arg("keepdim") = false);
  def_fn_and_method(
      m, cls, "max",
      [](const Tensor& a, py::object dim, bool keepdim) { return minmax(a, dim, keepdim, true); },
      py::arg("dim") = py::none(), py::arg("keepdim") = false);
  def_fn_and_method(
      m, cls, "min",
      [](const Tensor& a, py::object dim, bool keepdim) { return minmax(a, dim, keepdim, false); },
      py::arg("dim") = py::none(), py::arg("keepdim") = false);
  // The binary forms by torch's keyword name: x.max(other=y) is maximum(x, y).
  def_fn_and_method(
      m, cls, "max",
      [](const Tensor& a, const Tensor& other) { return minmax(a, py::cast(other), false, true); },
      py::arg("other"));
  def_fn_and_method(
      m, cls, "min",
      [](const Tensor& a, const Tensor& other) { return minmax(a, py::cast(other), false, false); },
      py::arg("other"));
  def_fn_and_method(
      m, cls, "argmax",
      [](const Tensor& a, py::object dim, bool keepdim) {
        return argmax(a, opt_int(dim), keepdim);
      },
      py::arg("dim") = py::none(), py::arg("keepdim") = false);
  def_fn_and_method(
      m, cls, "argmin",
      [](const Tensor& a, py::object dim, bool keepdim) {
        return argmin(a, opt_int(dim), keepdim);
      },
      py::arg("dim") = py::none(), py::arg("keepdim") = false);

  // var / std / var_mean / std_mean
  def_fn_and_method(
      m, cls, "var",
      [](const Tensor& a, py::object dim, py::object unbiased, bool keepdim,
         py::object correction) {
        auto v = var_args(dim, unbiased, correction);
        return var(a, v.dims, v.correction, keepdim);
      },
      py::arg("dim") = py::none(), py::arg("unbiased") = py::none(), py::arg("keepdim") = false, kw,
      py::arg("correction") = py::none());
  def_fn_and_method(
      m, cls, "std",
      [](const Tensor& a, py::object dim, py::object unbiased, bool keepdim,
         py::object correction) {
        auto v = var_args(dim, unbiased, correction);
        return std(a, v.dims, v.correction, keepdim);
      },
      py::arg("dim") = py::none(), py::arg("unbiased") = py::none(), py::arg("keepdim") = false, kw,
      py::arg("correction") = py::none());
  m.def(
      "var_mean",
      [](const Tensor& a, py::object dim, py::object unbiased, bool keepdim,
         py::object correction) {
        auto v = var_args(dim, unbiased, correction);
        auto r = var_mean(a, v.dims, v.correction, keepdim);
        return py::make_tuple(r.first, r.second);
      },
      py::arg("input"), py::arg("dim") = py::none(), py::arg("unbiased") = py::none(),
      py::arg("keepdim") = false, kw, py::arg("correction") = py::none());
  m.def(
      "std_mean",
      [](const Tensor& a, py::object dim, py::object unbiased, bool keepdim,
         py::object correction) {
        auto v = var_args(dim, unbiased, correction);
        auto r = std_mean(a, v.dims, v.correction, keepdim);
        return py::make_tuple(r.first, r.second);
      },
      py::arg("input"), py::arg("dim") = py::none(), py::arg("unbiased") = py::none(),
      py::arg("keepdim") = false, kw, py::arg("correction") = py::none());

  def_fn_and_method(
      m, cls, "norm",
      [](const Tensor& a, py::object p, py::object dim, bool keepdim, py::object dtype) {
        return norm(a, norm_order(p), to_dims(dim), keepdim, opt_dtype(dtype));
      },
      py::arg("p") = "fro", py::arg("dim") = py::none(), py::arg("keepdim") = false,
      py::arg("dtype") = py::none());
  def_fn_and_method(
      m, cls, "logsumexp",
      [](const Tensor& a, py::object dim, bool keepdim) {
        return logsumexp(a, to_dims(dim), keepdim);
      },
      py::arg("dim"), py::arg("keepdim") = false);
  def_fn_and_method(
      m, cls, "all",
      [](const Tensor& a, py::object dim, bool keepdim) { return all(a, to_dims(dim), keepdim); },
      py::arg("dim") = py::none(), py::arg("keepdim") = false);
  def_fn_and_method(
      m, cls, "any",
      [](const Tensor& a, py::object dim, bool keepdim) { return any(a, to_dims(dim), keepdim); },
      py::arg("dim") = py::none(), py::arg("keepdim") = false);
  def_fn_and_method(
      m, cls, "count_nonzero",
      [](const Tensor& a, py::object dim) { return count_nonzero(a, to_dims(dim)); },
      py::arg("dim") = py::none());
  def_fn_and_method(
      m, cls, "nansum",
      [](const Tensor& a, py::object dim, bool keepdim, py::object dtype) {
        return nansum(a, to_dims(dim), keepdim, opt_dtype(dtype));
      },
      py::arg("dim") = py::none(), py::arg("keepdim") = false, kw, py::arg("dtype") = py::none());
  def_fn_and_method(
      m, cls, "nanmean",
      [](const Tensor& a, py::object dim, bool keepdim, py::object dtype) {
        return nanmean(a, to_dims(dim), keepdim, opt_dtype(dtype));
      },
      py::arg("dim") = py::none(), py::arg("keepdim") = false, kw, py::arg("dtype") = py::none());
  def_fn_and_method(
      m, cls, "median",
      [](const Tensor& a, py::object dim, bool keepdim) -> py::object {
        if (dim.is_none()) return py::cast(median(a));
        return named("median", median(a, single_dim(dim, "median"), keepdim));
      },
      py::arg("dim") = py::none(), py::arg("keepdim") = false);
  def_fn_and_method(
      m, cls, "nanmedian",
      [](const Tensor& a, py::object dim, bool keepdim) -> py::object {
        if (dim.is_none()) return py::cast(nanmedian(a));
        return named("nanmedian", nanmedian(a, single_dim(dim, "nanmedian"), keepdim));
      },
      py::arg("dim") = py::none(), py::arg("keepdim") = false);
  def_fn_and_method(
      m, cls, "mode",
      [](const Tensor& a, int64_t dim, bool keepdim) {
        return named("mode", mode(a, dim, keepdim));
      },
      py::arg("dim") = -1, py::arg("keepdim") = false);

  // scans
  def_fn_and_method(
      m, cls, "cumsum",
      [](const Tensor& a, int64_t dim, py::object dtype) {
        return cumsum(a, dim, opt_dtype(dtype));
      },
      py::arg("dim"), kw, py::arg("dtype") = py::none());
  def_fn_and_method(
      m, cls, "cumprod",
      [](const Tensor& a, int64_t dim, py::object dtype) {
        return cumprod(a, dim, opt_dtype(dtype));
      },
      py::arg("dim"), kw, py::arg("dtype") = py::none());
  def_fn_and_method(
      m, cls, "logcumsumexp", [](const Tensor& a, int64_t dim) { return logcumsumexp(a, dim); },
      py::arg("dim"));
  def_fn_and_method(
      m, cls, "cummax",
      [](const Tensor& a, int64_t dim) { return named("cummax", cummax(a, dim)); }, py::arg("dim"));
  def_fn_and_method(
      m, cls, "cummin",
      [](const Tensor& a, int64_t dim) { return named("cummin", cummin(a, dim)); }, py::arg("dim"));

  // sorting / searching
  def_fn_and_method(
      m, cls, "sort",
      [](const Tensor& a, int64_t dim, bool descending, bool stable) {
        return named("sort", sort(a, dim, descending, stable));
      },
      py::arg("dim") = -1, py::arg("descending") = false, kw, py::arg("stable") = false);
  def_fn_and_method(
      m, cls, "argsort",
      [](const Tensor& a, int64_t dim, bool descending, bool stable) {
        return argsort(a, dim, descending, stable);
      },
      py::arg("dim") = -1, py::arg("descending") = false, kw, py::arg("stable") = false);
  def_fn_and_method(
      m, cls, "topk",
      [](const Tensor& a, int64_t k, int64_t dim, bool largest, bool sorted) {
        return named("topk", topk(a, k, dim, largest, sorted));
      },
      py::arg("k"), py::arg("dim") = -1, py::arg("largest") = true, py::arg("sorted") = true);
  def_fn_and_method(
      m, cls, "kthvalue",
      [](const Tensor& a, int64_t k, int64_t dim, bool keepdim) {
        return named("kthvalue", kthvalue(a, k, dim, keepdim));
      },
      py::arg("k"), py::arg("dim") = -1, py::arg("keepdim") = false);
  def_fn_and_method(
      m, cls, "unique",
      [](const Tensor& a, bool sorted, bool return_inverse, bool return_counts, py::object dim) {
        // With dim, slices are always sorted (torch ignores sorted=False there too).
        if (!dim.is_none())
          return unique_result(unique_dim(a, dim.cast<int64_t>()), return_inverse, return_counts);
        return unique_result(unique(a, sorted), return_inverse, return_counts);
      },
      py::arg("sorted") = true, py::arg("return_inverse") = false, py::arg("return_counts") = false,
      py::arg("dim") = py::none());
  def_fn_and_method(
      m, cls, "unique_consecutive",
      [](const Tensor& a, bool return_inverse, bool return_counts, py::object dim) {
        if (!dim.is_none())
          return unique_result(unique_dim(a, dim.cast<int64_t>(), true), return_inverse,
                               return_counts);
        return unique_result(unique_consecutive(a), return_inverse, return_counts);
      },
      py::arg("return_inverse") = false, py::arg("return_counts") = false,
      py::arg("dim") = py::none());
  m.def(
      "searchsorted",
      [](const Tensor& seq, py::object values, bool out_int32, bool right, py::object side,
         const Tensor& sorter) {
        if (!side.is_none()) {
          std::string s = side.cast<std::string>();
          TC_CHECK(s == "left" || s == "right",
                   "searchsorted(): side can only be 'left' or 'right', got '", s, "'");
          TC_CHECK(!(right && s == "left"),
                   "searchsorted(): side and right can't be set to opposites, got side of left "
                   "while right was True");
          right = s == "right";
        }
        return searchsorted(seq, to_tensor(values, "searchsorted"), out_int32, right, sorter);
      },
      py::arg("sorted_sequence"), py::arg("input"), kw, py::arg("out_int32") = false,
      py::arg("right") = false, py::arg("side") = py::none(), py::arg("sorter") = py::none());
  m.def(
      "bucketize",
      [](py::object a, const Tensor& boundaries, bool out_int32, bool right) {
        return bucketize(to_tensor(a, "bucketize"), boundaries, out_int32, right);
      },
      py::arg("input"), py::arg("boundaries"), kw, py::arg("out_int32") = false,
      py::arg("right") = false);
  def_fn_and_method(
      m, cls, "histc",
      [](const Tensor& a, int64_t bins, double min, double max) {
        return histc(a, bins, min, max);
      },
      py::arg("bins") = 100, py::arg("min") = 0, py::arg("max") = 0);
  def_fn_and_method(
      m, cls, "bincount",
      [](const Tensor& a, const Tensor& weights, int64_t minlength) {
        return bincount(a, weights, minlength);
      },
      py::arg("weights") = py::none(), py::arg("minlength") = 0);
}

Registrar r(bind_reduce_ops);

}  // namespace
}  // namespace tc::python
