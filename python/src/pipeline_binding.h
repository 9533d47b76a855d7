// Python view of a C++ deployment pipeline (vision and audio share the interface), so Python
// tests can check that what Python saved runs the same in C++.
#pragma once

#include "bind.h"

namespace tc::python {

template <class Pipeline>
void bind_deploy_pipeline(py::module_& m, const char* input_name) {
  py::class_<Pipeline>(m, "Pipeline")
      .def_static("load", &Pipeline::load, py::arg("path"))
      .def_static("from_json", [](const std::string& text) { return Pipeline::from_json(text); })
      .def("names", &Pipeline::names)
      .def("__len__", &Pipeline::size)
      .def(
          "__call__",
          [](const Pipeline& p, const Tensor& input, py::object gen) {
            GeneratorPtr g = gen.is_none() ? GeneratorPtr() : gen.cast<GeneratorPtr>();
            py::gil_scoped_release nogil;
            return p(input, g);
          },
          py::arg(input_name), py::arg("generator") = py::none());
}

}  // namespace tc::python
