// DLPack interop (zero-copy both ways): tc.from_dlpack(obj) and Tensor.__dlpack__().
// The structs follow the DLPack ABI (dlpack.h v0.8).
#include "bind.h"

namespace tc::python {
namespace {

struct DLDevice {
  int32_t device_type;  // kDLCPU = 1, kDLCUDA = 2
  int32_t device_id;
};
struct DLDataType {
  uint8_t code;  // 0 int, 1 uint, 2 float, 4 bfloat, 5 complex, 6 bool
  uint8_t bits;
  uint16_t lanes;
};
struct DLTensor {
  void* data;
  DLDevice device;
  int32_t ndim;
  DLDataType dtype;
  int64_t* shape;
  int64_t* strides;
  uint64_t byte_offset;
};
struct DLManagedTensor {
  DLTensor dl_tensor;
  void* manager_ctx;
  void (*deleter)(DLManagedTensor* self);
};

DLDataType to_dl(DType d) {
  uint8_t bits = uint8_t(itemsize(d) * 8);
  if (d == DType::Bool) return {6, 8, 1};
  if (d == DType::BFloat16) return {4, 16, 1};
  if (is_complex(d)) return {5, bits, 1};
  if (is_floating(d)) return {2, bits, 1};
  return {uint8_t(is_signed(d) ? 0 : 1), bits, 1};
}

DType from_dl(DLDataType t) {
  TC_CHECK_TYPE(t.lanes == 1, "from_dlpack: vector dtypes (lanes=", t.lanes, ") are not supported");
  switch (t.code) {
    case 0:
      if (t.bits == 8) return DType::Int8;
      if (t.bits == 16) return DType::Int16;
      if (t.bits == 32) return DType::Int32;
      if (t.bits == 64) return DType::Int64;
      break;
    case 1:
      if (t.bits == 8) return DType::UInt8;
      if (t.bits == 16) return DType::UInt16;
      break;
    case 2:
      if (t.bits == 16) return DType::Float16;
      if (t.bits == 32) return DType::Float32;
      if (t.bits == 64) return DType::Float64;
      break;
    case 4:
      if (t.bits == 16) return DType::BFloat16;
      break;
    case 5:
      if (t.bits == 64) return DType::Complex64;
      if (t.bits == 128) return DType::Complex128;
      break;
    case 6:
      if (t.bits == 8) return DType::Bool;
      break;
  }
  throw TypeError(detail::concat("from_dlpack: unsupported DLPack dtype (code ", int(t.code),
                                 ", bits ", int(t.bits), ")"));
}

// Owns the exported tensor's shape/stride arrays and keeps its storage alive.
struct ExportContext {
  Tensor tensor;
  Shape shape, strides;
  DLManagedTensor managed;
};

py::capsule to_dlpack(const Tensor& t, py::object /*stream*/) {
  TC_CHECK_AS(Error, !t.requires_grad(),
              "Can't export tensors that require gradient, use "
              "tensor.detach()");
  auto* ctx = new ExportContext{t, t.sizes(), t.strides(), {}};
  DLTensor& dl = ctx->managed.dl_tensor;
  dl.data = t.storage()->data();
  dl.byte_offset = uint64_t(t.storage_offset()) * t.itemsize();
  dl.device = {t.is_cuda() ? 2 : 1, t.is_cuda() ? std::max<int>(0, t.device().index) : 0};
  dl.ndim = int32_t(t.dim());
  dl.dtype = to_dl(t.dtype());
  dl.shape = ctx->shape.data();
  dl.strides = ctx->strides.data();
  ctx->managed.manager_ctx = ctx;
  ctx->managed.deleter = [](DLManagedTensor* self) {
    delete static_cast<ExportContext*>(self->manager_ctx);
  };
  // A consumer renames the capsule to "used_dltensor"; only an unconsumed one frees itself.
  return py::capsule(&ctx->managed, "dltensor", [](PyObject* cap) {
    if (PyCapsule_IsValid(cap, "dltensor")) {
      auto* m = static_cast<DLManagedTensor*>(PyCapsule_GetPointer(cap, "dltensor"));
      if (m && m->deleter) m->deleter(m);
    }
  });
}

Tensor from_dlpack(py::object obj) {
  py::object cap = obj;
  if (py::hasattr(obj, "__dlpack__")) cap = obj.attr("__dlpack__")();
  TC_CHECK_TYPE(PyCapsule_IsValid(cap.ptr(), "dltensor"),
                "from_dlpack: expected an object with "
                "__dlpack__ or an unconsumed DLPack capsule ('dltensor')");
  auto* m = static_cast<DLManagedTensor*>(PyCapsule_GetPointer(cap.ptr(), "dltensor"));
  const DLTensor& dl = m->dl_tensor;
  TC_CHECK(dl.device.device_type == 1 || dl.device.device_type == 2 || dl.device.device_type == 3,
           "from_dlpack: unsupported device type ", dl.device.device_type);
  Device dev =
      dl.device.device_type == 2 ? Device(DeviceType::CUDA, dl.device.device_id) : Device();
  DType dt = from_dl(dl.dtype);
  Shape sizes(dl.shape, dl.shape + dl.ndim);
  Shape strides = dl.strides ? Shape(dl.strides, dl.strides + dl.ndim) : contiguous_strides(sizes);
  int64_t span = 1;
  for (int i = 0; i < dl.ndim; ++i) span += sizes[i] > 0 ? (sizes[i] - 1) * strides[i] : 0;
  PyCapsule_SetName(cap.ptr(), "used_dltensor");
  void* data = static_cast<char*>(dl.data) + dl.byte_offset;
  Storage st = storage_from_blob(data, size_t(span) * itemsize(dt), dev, [m] {
    if (m->deleter) m->deleter(m);
  });
  return make_tensor(st, sizes, strides, 0, dt);
}

void bind_dlpack(py::module_& m, TensorClass& cls) {
  m.def("from_dlpack", &from_dlpack, py::arg("ext_tensor"));
  cls.def("__dlpack__", &to_dlpack, py::arg("stream") = py::none());
  cls.def("__dlpack_device__", [](const Tensor& t) {
    return py::make_tuple(t.is_cuda() ? 2 : 1,
                          t.is_cuda() ? std::max<int>(0, t.device().index) : 0);
  });
  m.def("to_dlpack", [](const Tensor& t) { return to_dlpack(t, py::none()); });
}

Registrar registrar(bind_dlpack);

}  // namespace
}  // namespace tc::python
