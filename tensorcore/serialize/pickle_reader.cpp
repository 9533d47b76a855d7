#include "tensorcore/serialize/pickle_reader.h"

#include <iterator>

#include "tensorcore/serialize/pickle_vm.h"

namespace tc::serialize::detail {

namespace {

using pickle::Kind;
using pickle::Obj;
using pickle::ObjPtr;

[[noreturn]] void fail(const std::string& what) { throw FormatError("pickle: " + what); }

// ---- the whitelist: the only names GLOBAL may resolve ----

enum class GlobalId {
  kOrderedDict,
  kRebuildTensor,
  kRebuildTensorV2,
  kRebuildParameter,
  kRebuildParameterWithState,
  kRebuildFromTypeV2,
  kTorchSize,
  kTensorClass,     // not callable; appears as an argument of _rebuild_from_type_v2
  kParameterClass,  // ditto
  kStorageClass,    // not callable; appears inside persistent ids
};

struct GlobalSpec {
  std::string_view name;
  GlobalId id;
  std::string_view dtype;  // for storage classes
};

constexpr GlobalSpec kGlobals[] = {
    {"collections.OrderedDict", GlobalId::kOrderedDict, ""},
    {"torch._utils._rebuild_tensor", GlobalId::kRebuildTensor, ""},
    {"torch._utils._rebuild_tensor_v2", GlobalId::kRebuildTensorV2, ""},
    {"torch._utils._rebuild_parameter", GlobalId::kRebuildParameter, ""},
    {"torch._utils._rebuild_parameter_with_state", GlobalId::kRebuildParameterWithState, ""},
    {"torch._tensor._rebuild_from_type_v2", GlobalId::kRebuildFromTypeV2, ""},
    {"torch.Size", GlobalId::kTorchSize, ""},
    {"torch.Tensor", GlobalId::kTensorClass, ""},
    {"torch.nn.parameter.Parameter", GlobalId::kParameterClass, ""},
    {"torch.FloatStorage", GlobalId::kStorageClass, "F32"},
    {"torch.DoubleStorage", GlobalId::kStorageClass, "F64"},
    {"torch.HalfStorage", GlobalId::kStorageClass, "F16"},
    {"torch.BFloat16Storage", GlobalId::kStorageClass, "BF16"},
    {"torch.LongStorage", GlobalId::kStorageClass, "I64"},
    {"torch.IntStorage", GlobalId::kStorageClass, "I32"},
    {"torch.ShortStorage", GlobalId::kStorageClass, "I16"},
    {"torch.CharStorage", GlobalId::kStorageClass, "I8"},
    {"torch.ByteStorage", GlobalId::kStorageClass, "U8"},
    {"torch.BoolStorage", GlobalId::kStorageClass, "BOOL"},
    {"torch.ComplexFloatStorage", GlobalId::kStorageClass, "C64"},
    {"torch.ComplexDoubleStorage", GlobalId::kStorageClass, "C128"},
    {"torch.UntypedStorage", GlobalId::kStorageClass, "U8"},  // numel counts bytes
};

const GlobalSpec& spec_of(const Obj& g) { return kGlobals[static_cast<std::size_t>(g.i)]; }
bool is_global(const Obj& o, GlobalId id) { return o.kind == Kind::kGlobal && spec_of(o).id == id; }

// The semantics torch.save's pickles rely on, and nothing more.
class TorchPolicy final : public pickle::Policy {
 public:
  TorchPolicy(pickle::ObjArena& arena, const StorageLoader& loader)
      : arena_(arena), loader_(loader) {}

  ObjPtr resolve_global(std::string_view module, std::string_view name) override {
    std::string full;
    full.reserve(module.size() + 1 + name.size());
    full.append(module).append(".").append(name);
    for (std::size_t idx = 0; idx < std::size(kGlobals); ++idx) {
      if (kGlobals[idx].name == full) {
        ObjPtr o = arena_.make(Kind::kGlobal);
        o->i = static_cast<int64_t>(idx);
        o->s = std::move(full);
        return o;
      }
    }
    fail("refusing to load unsupported global " + quote_for_message(full) +
         " (only tensors, storages and standard containers can be read)");
  }

  ObjPtr call(const Obj& fn, const std::vector<ObjPtr>& a) override {
    if (fn.kind != Kind::kGlobal) fail("REDUCE/NEWOBJ target is not a callable global");
    const GlobalSpec& g = spec_of(fn);
    auto expect_args = [&](std::size_t lo, std::size_t hi) {
      if (a.size() < lo || a.size() > hi) {
        fail(std::string(g.name) + " got " + std::to_string(a.size()) + " arguments");
      }
    };
    switch (g.id) {
      case GlobalId::kOrderedDict: {  // OrderedDict() or OrderedDict([(k, v), ...])
        expect_args(0, 1);
        ObjPtr d = arena_.make(Kind::kDict);
        if (a.size() == 1) {
          if (a[0]->kind != Kind::kList && a[0]->kind != Kind::kTuple) {
            fail("OrderedDict() argument must be a list of pairs");
          }
          for (const ObjPtr& kv : a[0]->items) {
            if ((kv->kind != Kind::kTuple && kv->kind != Kind::kList) || kv->items.size() != 2) {
              fail("OrderedDict() argument must be a list of pairs");
            }
            pickle::ObjArena::set_item(*d, kv->items[0], kv->items[1]);
          }
        }
        return d;
      }
      case GlobalId::kRebuildTensor:
        expect_args(4, 4);
        return rebuild_tensor(a);
      case GlobalId::kRebuildTensorV2:
        expect_args(6, 7);
        return rebuild_tensor(a);
      case GlobalId::kRebuildParameter:
      case GlobalId::kRebuildParameterWithState: {
        // (data, requires_grad, backward_hooks[, state]) -> the same tensor, flagged.
        const std::size_t n = g.id == GlobalId::kRebuildParameter ? 3 : 4;
        expect_args(n, n);
        if (a[0]->kind != Kind::kTensor) fail("_rebuild_parameter: data is not a tensor");
        if (a[1]->kind != Kind::kBool) fail("_rebuild_parameter: requires_grad must be a bool");
        ObjPtr o = arena_.make(Kind::kTensor);
        o->tensor = std::make_unique<PtTensorRecord>(*a[0]->tensor);
        o->tensor->requires_grad = a[1]->i != 0;
        return o;
      }
      case GlobalId::kRebuildFromTypeV2: {
        // (func, new_type, args, state): only plain Tensor/Parameter rebuilt by a tensor
        // rebuild helper; subclass state is dropped.
        expect_args(4, 4);
        if (!is_global(*a[0], GlobalId::kRebuildTensor) &&
            !is_global(*a[0], GlobalId::kRebuildTensorV2)) {
          fail("_rebuild_from_type_v2: unsupported rebuild function");
        }
        if (!is_global(*a[1], GlobalId::kTensorClass) &&
            !is_global(*a[1], GlobalId::kParameterClass)) {
          fail("_rebuild_from_type_v2: unsupported tensor type");
        }
        if (a[2]->kind != Kind::kTuple) fail("_rebuild_from_type_v2: args must be a tuple");
        return call(*a[0], a[2]->items);
      }
      case GlobalId::kTorchSize: {
        expect_args(1, 1);
        std::vector<ObjPtr> dims;
        for (int64_t d : int_sequence(*a[0], "torch.Size")) dims.push_back(arena_.make_int(d));
        return arena_.make_seq(Kind::kTuple, std::move(dims));
      }
      default:
        fail(quote_for_message(g.name) + " is not callable");
    }
  }

  // ('storage', storage_class, key, location, numel)
  ObjPtr persistent_load(const Obj& pid) override {
    if (pid.kind != Kind::kTuple || pid.items.size() != 5) fail("persistent id is not a 5-tuple");
    const auto& t = pid.items;
    if (t[0]->kind != Kind::kStr || t[0]->s != "storage") {
      fail("persistent id is not a storage reference");
    }
    if (!is_global(*t[1], GlobalId::kStorageClass)) {
      fail("persistent id has an unsupported storage type");
    }
    if (t[2]->kind != Kind::kStr || t[3]->kind != Kind::kStr) {
      fail("persistent id key/location must be strings");
    }
    if (t[4]->kind != Kind::kInt || t[4]->i < 0) {
      fail("persistent id numel must be a non-negative int");
    }
    auto st = std::make_unique<pickle::StorageData>();
    st->dtype = spec_of(*t[1]).dtype;
    st->key = t[2]->s;
    st->location = t[3]->s;
    st->numel = t[4]->i;
    st->bytes = loader_(st->key, st->dtype, st->numel);
    if (!st->bytes) fail("storage " + quote_for_message(st->key) + " could not be loaded");
    ObjPtr o = arena_.make(Kind::kStorage);
    o->storage = std::move(st);
    return o;
  }

  void build(Obj& target, const Obj& /*state*/) override {
    // OrderedDict state carries attributes such as a state_dict's `_metadata`; tensors may
    // carry subclass state. Neither has a place in the value tree, so both are dropped.
    if (target.kind != Kind::kDict && target.kind != Kind::kTensor) {
      fail("BUILD on an unsupported object");
    }
  }

 private:
  static std::vector<int64_t> int_sequence(const Obj& o, const char* what) {
    if (o.kind != Kind::kTuple && o.kind != Kind::kList) {
      fail(std::string(what) + " must be a tuple of ints");
    }
    std::vector<int64_t> out;
    out.reserve(o.items.size());
    for (const ObjPtr& it : o.items) {
      if (it->kind != Kind::kInt || it->i < 0) {
        fail(std::string(what) + " must contain non-negative ints");
      }
      out.push_back(it->i);
    }
    return out;
  }

  // _rebuild_tensor[_v2](storage, storage_offset, size, stride
  //                      [, requires_grad, backward_hooks[, metadata]])
  ObjPtr rebuild_tensor(const std::vector<ObjPtr>& a) {
    if (a[0]->kind != Kind::kStorage) fail("tensor rebuild: first argument is not a storage");
    const pickle::StorageData& st = *a[0]->storage;
    if (a[1]->kind != Kind::kInt || a[1]->i < 0) {
      fail("tensor rebuild: storage offset must be a non-negative int");
    }
    const int64_t offset = a[1]->i;
    auto rec = std::make_unique<PtTensorRecord>();
    rec->shape = int_sequence(*a[2], "tensor size");
    rec->strides = int_sequence(*a[3], "tensor stride");
    if (rec->shape.size() != rec->strides.size()) {
      fail("tensor rebuild: size and stride lengths differ");
    }
    if (a.size() > 4) {
      if (a[4]->kind != Kind::kBool) fail("tensor rebuild: requires_grad must be a bool");
      rec->requires_grad = a[4]->i != 0;
      if (a[5]->kind != Kind::kDict && a[5]->kind != Kind::kNone) {
        fail("tensor rebuild: backward_hooks must be a dict");
      }
    }
    // numel must fit int64 (as in torch), and every element the view can address must lie
    // inside the storage.
    uint64_t numel = 1;
    for (int64_t d : rec->shape) {
      if (!checked_mul(numel, uint64_t(d), numel) || numel > uint64_t(INT64_MAX)) {
        fail("tensor of shape " + format_shape(rec->shape) + " has too many elements");
      }
    }
    uint64_t last = static_cast<uint64_t>(offset);
    for (std::size_t d = 0; d < rec->shape.size() && numel > 0; ++d) {
      uint64_t span = 0;
      if (!checked_mul(uint64_t(rec->shape[d] - 1), uint64_t(rec->strides[d]), span) ||
          !checked_add(last, span, last)) {
        fail("tensor rebuild: size/stride overflow");
      }
    }
    if (numel > 0 && last >= static_cast<uint64_t>(st.numel)) {
      fail("tensor of shape " + format_shape(rec->shape) + ", stride " +
           format_shape(rec->strides) + " at offset " + std::to_string(offset) +
           " reads past the end of storage " + quote_for_message(st.key) + " (" +
           std::to_string(st.numel) + " elements)");
    }
    rec->dtype = st.dtype;
    rec->storage_offset = offset;
    rec->storage = st.bytes;
    rec->storage_key = st.key;
    rec->device = st.location;
    ObjPtr o = arena_.make(Kind::kTensor);
    o->tensor = std::move(rec);
    return o;
  }

  pickle::ObjArena& arena_;
  const StorageLoader& loader_;
};

}  // namespace

PtValue unpickle_torch(std::string_view data, const StorageLoader& load_storage,
                       const UnpickleLimits& limits) {
  pickle::ObjArena arena;  // declared first: it must outlive every object the policy makes
  TorchPolicy policy(arena, load_storage);
  const ObjPtr root = pickle::run(data, arena, policy);
  uint64_t budget = limits.max_output_bytes;
  uint64_t scaled = 0;
  if (checked_mul(limits.output_bytes_per_input_byte, data.size(), scaled)) {
    checked_add(budget, scaled, budget);  // on overflow the budget stays at the base
  }
  return pickle::to_pt_value(root, limits.max_depth, budget);
}

}  // namespace tc::serialize::detail
