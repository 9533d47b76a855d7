#pragma once
// Internal: a small pickle virtual machine (binary protocols 2-5) that runs on a
// reference-counted object graph, with every import/call decision delegated to a Policy.
// pickle_reader.cpp supplies the torch.save policy; nothing here can execute code.
//
// Pickle containers are mutable and shared through the memo (a dict is memoized while still
// empty, then filled), so the program must run on shared objects; the finished graph is then
// converted into the value-type PtValue tree.
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "tensorcore/serialize/pt_format.h"

namespace tc::serialize::detail::pickle {

enum class Kind : uint8_t {
  kNone,
  kBool,
  kInt,
  kFloat,
  kStr,
  kList,
  kTuple,
  kDict,
  kTensor,   // produced by the policy (tensor rebuild functions)
  kGlobal,   // a whitelisted name resolved by the policy
  kStorage,  // produced by the policy's persistent_load
};

struct Obj;
using ObjPtr = std::shared_ptr<Obj>;

struct DictData {
  std::vector<std::pair<ObjPtr, ObjPtr>> entries;      // insertion order
  std::unordered_map<std::string, std::size_t> index;  // encoded key -> position in entries
};

struct StorageData {
  std::string dtype, key, location;
  int64_t numel = 0;
  std::shared_ptr<const std::string> bytes;
};

struct Obj {
  explicit Obj(Kind k) : kind(k) {}
  Kind kind;
  bool converting = false;    // set while being converted, to detect reference cycles
  int64_t i = 0;              // kInt value; kBool 0/1; kGlobal: policy-defined id
  double f = 0;               // kFloat
  std::string s;              // kStr text; kGlobal qualified name ("module.name")
  std::vector<ObjPtr> items;  // kList, kTuple
  std::unique_ptr<DictData> dict;
  std::unique_ptr<PtTensorRecord> tensor;
  std::unique_ptr<StorageData> storage;
};

// Creates objects and owns the graph's teardown: on destruction it empties every container
// first, so reference cycles cannot leak and deep chains are not destroyed recursively.
class ObjArena {
 public:
  ObjArena() = default;
  ObjArena(const ObjArena&) = delete;
  ObjArena& operator=(const ObjArena&) = delete;
  ~ObjArena();

  ObjPtr make(Kind k);
  ObjPtr make_int(int64_t v);
  ObjPtr make_str(std::string_view s);
  ObjPtr make_seq(Kind k, std::vector<ObjPtr> items);

  // d[key] = value with Python's equality for the hashable keys checkpoints use (None,
  // bool/int/float with 1 == 1.0 == True, str, short tuples of those); a repeated key keeps
  // its position and takes the new value. Throws FormatError for other keys.
  static void set_item(Obj& d, ObjPtr key, ObjPtr value);

 private:
  std::vector<ObjPtr> containers_;
};

// Decides what GLOBAL, REDUCE/NEWOBJ, BINPERSID and BUILD may do. Implementations throw
// FormatError to refuse; run() appends the opcode position to the message.
class Policy {
 public:
  virtual ~Policy() = default;
  virtual ObjPtr resolve_global(std::string_view module, std::string_view name) = 0;
  virtual ObjPtr call(const Obj& callable, const std::vector<ObjPtr>& args) = 0;
  virtual ObjPtr persistent_load(const Obj& pid) = 0;
  virtual void build(Obj& target, const Obj& state) = 0;
};

// Runs the pickle program in `data`; returns the object STOP pops. Throws FormatError.
ObjPtr run(std::string_view data, ObjArena& arena, Policy& policy);

// Converts a finished graph into a PtValue. Fails on reference cycles, kGlobal/kStorage
// leaves, nesting deeper than `max_depth`, or a tree larger than `budget_bytes` (memo
// references can make a tiny pickle expand exponentially).
PtValue to_pt_value(const ObjPtr& root, std::size_t max_depth, uint64_t budget_bytes);

}  // namespace tc::serialize::detail::pickle
