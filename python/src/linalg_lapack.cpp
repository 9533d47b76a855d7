// Bindings for tc::linalg (submodule _C._linalg, wrapped by python/tensorcore/linalg, which adds
// the named tuples, the legacy torch.* forms and the composite functions).
#include "bind.h"
#include "tensorcore/linalg/linalg.h"

namespace tc::python {
namespace {

PyObject* g_linalg_error = nullptr;  // leaked on purpose, as the other exception types

std::optional<double> opt_double(py::handle h) {
  if (h.is_none()) return std::nullopt;
  if (is_tensor(h)) return h.cast<Tensor>().item<double>();
  return h.cast<double>();
}

void bind_linalg_lapack(py::module_& m, TensorClass& /*cls*/) {
  py::module_ l = m.def_submodule("_linalg", "LAPACK-backed linear algebra (tensorcore.linalg)");
  g_linalg_error =
      PyErr_NewException("tensorcore.linalg.LinAlgError", m.attr("TensorcoreError").ptr(), nullptr);
  l.attr("LinAlgError") = py::handle(g_linalg_error);
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const linalg::LinAlgError& e) {
      PyErr_SetString(g_linalg_error, e.what());
    }
  });
  using namespace linalg;
  l.def("cholesky_ex", &cholesky_ex, py::arg("A"), py::kw_only(), py::arg("upper") = false,
        py::arg("check_errors") = false);
  l.def("cholesky", &cholesky, py::arg("A"), py::kw_only(), py::arg("upper") = false);
  l.def("cholesky_solve", &cholesky_solve, py::arg("input"), py::arg("input2"),
        py::arg("upper") = false);
  l.def("cholesky_inverse", &cholesky_inverse, py::arg("input"), py::arg("upper") = false);
  l.def("inv", &inv, py::arg("A"));
  l.def("inv_ex", &inv_ex, py::arg("A"), py::kw_only(), py::arg("check_errors") = false);
  l.def("solve", &solve, py::arg("A"), py::arg("B"), py::kw_only(), py::arg("left") = true);
  l.def("solve_ex", &solve_ex, py::arg("A"), py::arg("B"), py::kw_only(), py::arg("left") = true,
        py::arg("check_errors") = false);
  l.def("solve_triangular", &solve_triangular, py::arg("A"), py::arg("B"), py::kw_only(),
        py::arg("upper"), py::arg("left") = true, py::arg("unitriangular") = false);
  l.def("det", &det, py::arg("A"));
  l.def("slogdet", &slogdet, py::arg("A"));
  l.def("logdet", &logdet, py::arg("input"));
  l.def("lu_factor", &lu_factor, py::arg("A"), py::kw_only(), py::arg("pivot") = true);
  l.def("lu_factor_ex", &lu_factor_ex, py::arg("A"), py::kw_only(), py::arg("pivot") = true,
        py::arg("check_errors") = false);
  l.def("lu", &lu, py::arg("A"), py::kw_only(), py::arg("pivot") = true);
  l.def("lu_unpack", &lu_unpack, py::arg("LU_data"), py::arg("LU_pivots"),
        py::arg("unpack_data") = true, py::arg("unpack_pivots") = true);
  l.def("lu_solve", &lu_solve, py::arg("LU"), py::arg("pivots"), py::arg("B"), py::kw_only(),
        py::arg("left") = true, py::arg("adjoint") = false);
  l.def("ldl_factor_ex", &ldl_factor_ex, py::arg("A"), py::kw_only(), py::arg("hermitian") = false,
        py::arg("check_errors") = false);
  l.def("ldl_factor", &ldl_factor, py::arg("A"), py::kw_only(), py::arg("hermitian") = false);
  l.def("ldl_solve", &ldl_solve, py::arg("LD"), py::arg("pivots"), py::arg("B"), py::kw_only(),
        py::arg("hermitian") = false);
  l.def("qr", &qr, py::arg("A"), py::arg("mode") = "reduced");
  l.def("geqrf", &geqrf, py::arg("input"));
  l.def("householder_product", &householder_product, py::arg("A"), py::arg("tau"));
  l.def("eigh", &eigh, py::arg("A"), py::arg("UPLO") = "L");
  l.def("eigvalsh", &eigvalsh, py::arg("A"), py::arg("UPLO") = "L");
  l.def("eig", &eig, py::arg("A"));
  l.def("eigvals", &eigvals, py::arg("A"));
  l.def("svd", &svd, py::arg("A"), py::arg("full_matrices") = true);
  l.def("svdvals", &svdvals, py::arg("A"));
  l.def(
      "pinv",
      [](const Tensor& A, py::object atol, py::object rtol, bool hermitian) {
        return pinv(A, opt_double(atol), opt_double(rtol), hermitian);
      },
      py::arg("A"), py::kw_only(), py::arg("atol") = py::none(), py::arg("rtol") = py::none(),
      py::arg("hermitian") = false);
  l.def(
      "lstsq",
      [](const Tensor& A, const Tensor& B, py::object rcond, py::object driver) {
        return lstsq(A, B, opt_double(rcond),
                     driver.is_none() ? std::string() : driver.cast<std::string>());
      },
      py::arg("A"), py::arg("B"), py::arg("rcond") = py::none(), py::kw_only(),
      py::arg("driver") = py::none());
}

Registrar registrar(bind_linalg_lapack);

}  // namespace
}  // namespace tc::python
