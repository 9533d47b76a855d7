// Bindings for tensorcore/distributed (tensorcore._C._distributed): stores, process groups, Work
// handles and the DDP reducer. Blocking calls release the GIL; Python communication hooks are
// called back with the GIL taken.
#include <pybind11/chrono.h>

#include "bind.h"
#include "tensorcore/distributed/process_group.h"
#include "tensorcore/distributed/reducer.h"

namespace tc::python {
namespace {

using namespace tc::distributed;

Bytes to_store_bytes(py::handle v) {
  if (py::isinstance<py::bytes>(v)) {
    std::string s = v.cast<std::string>();
    return Bytes(s.begin(), s.end());
  }
  if (py::isinstance<py::str>(v)) {
    std::string s = v.cast<std::string>();
    return Bytes(s.begin(), s.end());
  }
  throw TypeError(detail::concat("Store: values must be str or bytes, got ",
                                 std::string(py::str(v.get_type().attr("__name__")))));
}

py::bytes to_py_bytes(const Bytes& b) {
  return py::bytes(reinterpret_cast<const char*>(b.data()), b.size());
}

// A Work backed by a Python future-like object (what a Python comm hook returns).
class PyFutureWork final : public Work {
 public:
  explicit PyFutureWork(py::object fut) : Work("comm_hook"), fut_(std::move(fut)) {}
  ~PyFutureWork() override {
    py::gil_scoped_acquire gil;
    fut_ = py::object();
  }
  bool is_completed() override {
    py::gil_scoped_acquire gil;
    return py::hasattr(fut_, "done") ? fut_.attr("done")().cast<bool>() : true;
  }
  bool wait(Milliseconds) override {
    result();
    return true;
  }
  TensorList result() override {
    py::gil_scoped_acquire gil;
    py::object v = fut_.attr("wait")();
    if (is_tensor(v)) return {v.cast<Tensor>()};
    return v.cast<TensorList>();
  }

 private:
  py::object fut_;
};

void bind_distributed(py::module_& m, TensorClass&) {
  py::module_ d = m.def_submodule("_distributed", "process groups, stores and the DDP reducer");

  py::enum_<ReduceOp>(d, "ReduceOp",
                      "Reduction operation of the collectives (all_reduce, reduce, "
                      "reduce_scatter): SUM, AVG, PRODUCT, MIN, MAX and the bitwise BAND, BOR, "
                      "BXOR.")
      .value("SUM", ReduceOp::SUM)
      .value("AVG", ReduceOp::AVG)
      .value("PRODUCT", ReduceOp::PRODUCT)
      .value("MIN", ReduceOp::MIN)
      .value("MAX", ReduceOp::MAX)
      .value("BAND", ReduceOp::BAND)
      .value("BOR", ReduceOp::BOR)
      .value("BXOR", ReduceOp::BXOR);

  py::class_<Store, std::shared_ptr<Store>>(d, "Store")
      .def(
          "set",
          [](Store& s, const std::string& key, py::handle value) {
            auto b = to_store_bytes(value);
            py::gil_scoped_release r;
            s.set(key, b);
          },
          py::arg("key"), py::arg("value"))
      .def(
          "get",
          [](Store& s, const std::string& key) {
            Bytes b;
            {
              py::gil_scoped_release r;
              b = s.get(key);
            }
            return to_py_bytes(b);
          },
          py::arg("key"))
      .def("add", &Store::add, py::arg("key"), py::arg("amount"),
           py::call_guard<py::gil_scoped_release>())
      .def(
          "compare_set",
          [](Store& s, const std::string& key, py::handle expected, py::handle desired) {
            Bytes e = to_store_bytes(expected), want = to_store_bytes(desired), out;
            {
              py::gil_scoped_release r;
              out = s.compare_set(key, e, want);
            }
            return to_py_bytes(out);
          },
          py::arg("key"), py::arg("expected_value"), py::arg("desired_value"))
      .def("check", &Store::check, py::arg("keys"), py::call_guard<py::gil_scoped_release>())
      .def("delete_key", &Store::delete_key, py::arg("key"),
           py::call_guard<py::gil_scoped_release>())
      .def("num_keys", &Store::num_keys, py::call_guard<py::gil_scoped_release>())
      .def(
          "wait", [](Store& s, const std::vector<std::string>& keys) { s.wait(keys); },
          py::arg("keys"), py::call_guard<py::gil_scoped_release>())
      .def(
          "wait",
          [](Store& s, const std::vector<std::string>& keys, Milliseconds timeout) {
            s.wait(keys, timeout);
          },
          py::arg("keys"), py::arg("timeout"), py::call_guard<py::gil_scoped_release>())
      .def("set_timeout", &Store::set_timeout, py::arg("timeout"))
      .def_property_readonly("timeout", &Store::timeout);

  py::class_<TCPStore, Store, std::shared_ptr<TCPStore>>(d, "TCPStore")
      .def(py::init([](const std::string& host, int port, std::optional<int> world_size,
                       bool is_master, Milliseconds timeout, bool wait_for_workers) {
             py::gil_scoped_release r;
             return std::make_shared<TCPStore>(host, port, is_master, timeout,
                                               wait_for_workers && world_size.has_value(),
                                               world_size.value_or(-1));
           }),
           py::arg("host_name"), py::arg("port"), py::arg("world_size") = py::none(),
           py::arg("is_master") = false, py::arg("timeout") = kDefaultStoreTimeout,
           py::arg("wait_for_workers") = true)
      .def_property_readonly("port", &TCPStore::port)
      .def_property_readonly("host", &TCPStore::host);

  py::class_<FileStore, Store, std::shared_ptr<FileStore>>(d, "FileStore")
      .def(py::init([](const std::string& path, int world_size, Milliseconds timeout) {
             return std::make_shared<FileStore>(path, world_size, timeout);
           }),
           py::arg("file_name"), py::arg("world_size") = -1,
           py::arg("timeout") = kDefaultStoreTimeout)
      .def_property_readonly("path", &FileStore::path);

  py::class_<PrefixStore, Store, std::shared_ptr<PrefixStore>>(d, "PrefixStore")
      .def(py::init<std::string, std::shared_ptr<Store>>(), py::arg("prefix"), py::arg("store"))
      .def_property_readonly("underlying_store", &PrefixStore::underlying);

  py::class_<Work, std::shared_ptr<Work>>(d, "Work")
      .def(
          "wait", [](Work& w, Milliseconds timeout) { return w.wait(timeout); },
          py::arg("timeout") = Milliseconds(0), py::call_guard<py::gil_scoped_release>())
      .def("is_completed", &Work::is_completed)
      .def("is_success", &Work::is_success)
      .def("exception",
           [](Work& w) -> py::object {
             auto e = w.exception();
             if (!e) return py::none();
             try {
               std::rethrow_exception(e);
             } catch (const std::exception& ex) {
               return py::str(ex.what());
             }
           })
      .def("result", &Work::result, py::call_guard<py::gil_scoped_release>())
      .def_property_readonly("op_name", &Work::op_name);

  py::class_<ProcessGroup, std::shared_ptr<ProcessGroup>>(d, "ProcessGroup")
      .def("rank", &ProcessGroup::rank)
      .def("size", &ProcessGroup::size)
      .def("name", &ProcessGroup::backend_name)
      .def("allreduce", &ProcessGroup::allreduce, py::arg("tensors"), py::arg("op"),
           py::call_guard<py::gil_scoped_release>())
      .def("broadcast", &ProcessGroup::broadcast, py::arg("tensors"), py::arg("root"),
           py::call_guard<py::gil_scoped_release>())
      .def("reduce", &ProcessGroup::reduce, py::arg("tensors"), py::arg("root"), py::arg("op"),
           py::call_guard<py::gil_scoped_release>())
      .def("allgather", &ProcessGroup::allgather, py::arg("outputs"), py::arg("input"),
           py::call_guard<py::gil_scoped_release>())
      .def("allgather_into_tensor", &ProcessGroup::allgather_into_tensor, py::arg("output"),
           py::arg("input"), py::call_guard<py::gil_scoped_release>())
      .def("gather", &ProcessGroup::gather, py::arg("outputs"), py::arg("input"), py::arg("root"),
           py::call_guard<py::gil_scoped_release>())
      .def("scatter", &ProcessGroup::scatter, py::arg("output"), py::arg("inputs"), py::arg("root"),
           py::call_guard<py::gil_scoped_release>())
      .def("reduce_scatter", &ProcessGroup::reduce_scatter, py::arg("output"), py::arg("inputs"),
           py::arg("op"), py::call_guard<py::gil_scoped_release>())
      .def("reduce_scatter_tensor", &ProcessGroup::reduce_scatter_tensor, py::arg("output"),
           py::arg("input"), py::arg("op"), py::call_guard<py::gil_scoped_release>())
      .def("alltoall", &ProcessGroup::alltoall, py::arg("outputs"), py::arg("inputs"),
           py::call_guard<py::gil_scoped_release>())
      .def(
          "alltoall_single",
          [](ProcessGroup& pg, const Tensor& out, const Tensor& in, std::vector<int64_t> out_splits,
             std::vector<int64_t> in_splits) {
            return pg.alltoall_single(out, in, {std::move(out_splits), std::move(in_splits)});
          },
          py::arg("output"), py::arg("input"), py::arg("output_split_sizes"),
          py::arg("input_split_sizes"), py::call_guard<py::gil_scoped_release>())
      .def("barrier", &ProcessGroup::barrier, py::call_guard<py::gil_scoped_release>())
      .def("send", &ProcessGroup::send, py::arg("tensor"), py::arg("dst"), py::arg("tag"),
           py::call_guard<py::gil_scoped_release>())
      .def("recv", &ProcessGroup::recv, py::arg("tensor"), py::arg("src"), py::arg("tag"),
           py::call_guard<py::gil_scoped_release>())
      .def("recv_anysource", &ProcessGroup::recv_anysource, py::arg("tensor"), py::arg("tag"),
           py::call_guard<py::gil_scoped_release>())
      .def("broadcast_coalesced", &ProcessGroup::broadcast_coalesced, py::arg("tensors"),
           py::arg("root"), py::arg("buffer_bytes") = size_t(1) << 24,
           py::call_guard<py::gil_scoped_release>());

  d.def(
      "make_process_group_gloo",
      [](std::shared_ptr<Store> store, int rank, int size, Milliseconds timeout,
         std::string hostname, std::string iface, bool debug) {
        GlooOptions o;
        o.timeout = timeout;
        o.hostname = std::move(hostname);
        o.iface = std::move(iface);
        o.debug_checks = debug;
        return make_process_group_gloo(std::move(store), rank, size, o);
      },
      py::arg("store"), py::arg("rank"), py::arg("size"), py::arg("timeout"),
      py::arg("hostname") = "", py::arg("iface") = "", py::arg("debug") = false,
      py::call_guard<py::gil_scoped_release>());
  d.def(
      "make_process_group_nccl",
      [](std::shared_ptr<Store> store, int rank, int size, Milliseconds timeout) {
        NCCLOptions o;
        o.timeout = timeout;
        return make_process_group_nccl(std::move(store), rank, size, o);
      },
      py::arg("store"), py::arg("rank"), py::arg("size"), py::arg("timeout"),
      py::call_guard<py::gil_scoped_release>());
  d.def("is_gloo_available", &is_gloo_available);
  d.def("is_nccl_available", &is_nccl_available);

  py::class_<GradBucket>(d, "GradBucket")
      .def("index", [](const GradBucket& b) { return b.index; })
      .def("get_index", [](const GradBucket& b) { return b.index; })
      .def("buffer", [](const GradBucket& b) { return b.buffer; })
      .def("get_tensor", [](const GradBucket& b) { return b.buffer; })
      .def("set_buffer", [](GradBucket& b, const Tensor& t) { b.buffer = t; })
      .def("gradients", [](const GradBucket& b) { return b.gradients; })
      .def("get_per_parameter_tensors", [](const GradBucket& b) { return b.gradients; })
      .def("parameters", [](const GradBucket& b) { return b.parameters; })
      .def("is_last", [](const GradBucket& b) { return b.is_last; })
      .def("is_the_last_bucket_to_allreduce", [](const GradBucket& b) { return b.is_last; });

  py::class_<Reducer, std::shared_ptr<Reducer>>(d, "Reducer")
      .def(py::init([](TensorList params, std::vector<std::string> names,
                       std::shared_ptr<ProcessGroup> pg, double bucket_cap_mb,
                       int64_t first_bucket_bytes, bool find_unused, bool as_view,
                       bool static_graph) {
             ReducerOptions o;
             o.bucket_cap_mb = bucket_cap_mb;
             o.first_bucket_bytes = first_bucket_bytes;
             o.find_unused_parameters = find_unused;
             o.gradient_as_bucket_view = as_view;
             o.static_graph = static_graph;
             return std::make_shared<Reducer>(std::move(params), std::move(names), std::move(pg),
                                              o);
           }),
           py::arg("parameters"), py::arg("names"), py::arg("process_group"),
           py::arg("bucket_cap_mb") = 25.0, py::arg("first_bucket_bytes") = 1 << 20,
           py::arg("find_unused_parameters") = false, py::arg("gradient_as_bucket_view") = false,
           py::arg("static_graph") = false)
      .def("prepare_for_backward", &Reducer::prepare_for_backward, py::arg("outputs"))
      .def("run_join_shadow", &Reducer::run_join_shadow, py::call_guard<py::gil_scoped_release>())
      .def("bucket_indices", &Reducer::bucket_indices)
      .def("last_unused_parameters", &Reducer::last_unused_parameters)
      .def("register_builtin_comm_hook",
           [](Reducer& r, const std::string& name) {
             if (name == "allreduce")
               r.register_comm_hook(allreduce_hook(r.process_group()));
             else if (name == "fp16_compress")
               r.register_comm_hook(fp16_compress_hook(r.process_group()));
             else
               throw ValueError("register_builtin_comm_hook: unknown hook '" + name +
                                "' (expected 'allreduce' or 'fp16_compress')");
           })
      .def("register_comm_hook", [](Reducer& r, py::object state, py::object hook) {
        auto shared_state = std::make_shared<py::object>(std::move(state));
        auto shared_hook = std::make_shared<py::object>(std::move(hook));
        r.register_comm_hook(
            [shared_state, shared_hook](GradBucket& bucket) -> std::shared_ptr<Work> {
              py::gil_scoped_acquire gil;
              py::object fut = (*shared_hook)(*shared_state, py::cast(bucket));
              return std::make_shared<PyFutureWork>(std::move(fut));
            });
      });
}

Registrar registrar(bind_distributed);

}  // namespace
}  // namespace tc::python
