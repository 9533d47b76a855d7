#include "tensorcore/serialize/pickle_vm.h"

#include <bit>
#include <cmath>

#include "tensorcore/serialize/common.h"

namespace tc::serialize::detail::pickle {

namespace {

[[noreturn]] void fail(const std::string& what) { throw FormatError("pickle: " + what); }

std::string hex_byte(unsigned char c) {
  static constexpr char kHex[] = "0123456789abcdef";
  return std::string("0x") + kHex[c >> 4] + kHex[c & 0xF];
}

// Opcodes (names as in CPython's pickletools).
namespace op {
constexpr uint8_t kMark = '(', kStop = '.', kPop = '0', kPopMark = '1', kDup = '2';
constexpr uint8_t kBinInt = 'J', kBinInt1 = 'K', kBinInt2 = 'M', kNone = 'N', kBinPersId = 'Q';
constexpr uint8_t kReduce = 'R', kBinUnicode = 'X', kAppend = 'a', kBuild = 'b', kGlobal = 'c';
constexpr uint8_t kDict = 'd', kEmptyDict = '}', kAppends = 'e', kBinGet = 'h', kLongBinGet = 'j';
constexpr uint8_t kList = 'l', kEmptyList = ']', kBinPut = 'q', kLongBinPut = 'r';
constexpr uint8_t kSetItem = 's', kTuple = 't', kEmptyTuple = ')', kSetItems = 'u';
constexpr uint8_t kBinFloat = 'G', kBinBytes = 'B', kShortBinBytes = 'C';
constexpr uint8_t kProto = 0x80, kNewObj = 0x81, kTuple1 = 0x85, kTuple2 = 0x86, kTuple3 = 0x87;
constexpr uint8_t kNewTrue = 0x88, kNewFalse = 0x89, kLong1 = 0x8a, kLong4 = 0x8b;
constexpr uint8_t kShortBinUnicode = 0x8c, kBinUnicode8 = 0x8d, kBinBytes8 = 0x8e;
constexpr uint8_t kStackGlobal = 0x93, kMemoize = 0x94, kFrame = 0x95;
}  // namespace op

constexpr std::size_t kMaxKeyTupleLen = 64;

bool encode_key(const Obj& k, std::string& out, bool allow_tuple) {
  switch (k.kind) {
    case Kind::kNone:
      out += 'N';
      return true;
    case Kind::kBool:
    case Kind::kInt:
      out += 'i' + std::to_string(k.i) + ';';
      return true;
    case Kind::kFloat:
      if (std::isfinite(k.f) && k.f == std::trunc(k.f) && k.f >= -9223372036854775808.0 &&
          k.f < 9223372036854775808.0) {
        out += 'i' + std::to_string(static_cast<int64_t>(k.f)) + ';';  // 2.0 == 2
      } else {
        out += 'f' + std::to_string(std::bit_cast<uint64_t>(k.f)) + ';';
      }
      return true;
    case Kind::kStr:
      out += 's' + std::to_string(k.s.size()) + ':' + k.s;
      return true;
    case Kind::kTuple:
      if (!allow_tuple || k.items.size() > kMaxKeyTupleLen) return false;
      out += '(';
      for (const ObjPtr& it : k.items) {
        if (!encode_key(*it, out, false)) return false;
      }
      out += ')';
      return true;
    default:
      return false;
  }
}

// The pickle program interpreter: a stack with MARK fences, and a memo.
class Machine {
 public:
  Machine(std::string_view data, ObjArena& arena, Policy& policy)
      : data_(data), arena_(arena), policy_(policy) {}

  ObjPtr run() {
    try {
      while (pos_ < data_.size()) {
        op_pos_ = pos_;
        const auto code = static_cast<uint8_t>(data_[pos_++]);
        if (code == op::kStop) return pop();
        step(code);
      }
      op_pos_ = pos_;
      fail("data ended without a STOP opcode (truncated?)");
    } catch (const FormatError& e) {
      // Say where it went wrong: every error inside the program gets the opcode position.
      std::string where = " (at byte " + std::to_string(op_pos_) + ")";
      if (op_pos_ < data_.size()) {
        where = " (opcode " + hex_byte(static_cast<unsigned char>(data_[op_pos_])) + " at byte " +
                std::to_string(op_pos_) + ")";
      }
      throw FormatError(e.what() + where);
    }
  }

 private:
  // ---- input ----
  std::string_view take(uint64_t n) {
    if (n > data_.size() - pos_) {
      fail("truncated data: needs " + std::to_string(n) + " more bytes, " +
           std::to_string(data_.size() - pos_) + " left");
    }
    const std::string_view out = data_.substr(pos_, static_cast<std::size_t>(n));
    pos_ += static_cast<std::size_t>(n);
    return out;
  }
  uint64_t read_le(int nbytes) {
    const std::string_view b = take(static_cast<uint64_t>(nbytes));
    uint64_t v = 0;
    for (int i = nbytes - 1; i >= 0; --i) {
      v = (v << 8) | static_cast<unsigned char>(b[std::size_t(i)]);
    }
    return v;
  }
  std::string_view read_line() {
    const std::size_t nl = data_.find('\n', pos_);
    if (nl == std::string_view::npos) fail("truncated data: unterminated GLOBAL name");
    const std::string_view out = data_.substr(pos_, nl - pos_);
    pos_ = nl + 1;
    return out;
  }

  // ---- stack (items below the innermost MARK are off limits, as in CPython) ----
  std::size_t fence() const { return marks_.empty() ? 0 : marks_.back(); }
  void push(ObjPtr o) { stack_.push_back(std::move(o)); }
  ObjPtr pop() {
    if (stack_.size() <= fence()) fail("stack underflow");
    ObjPtr o = std::move(stack_.back());
    stack_.pop_back();
    return o;
  }
  const ObjPtr& top_ptr() const {
    if (stack_.size() <= fence()) fail("stack underflow");
    return stack_.back();
  }
  Obj& top() { return *top_ptr(); }
  std::vector<ObjPtr> pop_mark() {
    if (marks_.empty()) fail("MARK expected but not found");
    const auto m = static_cast<std::ptrdiff_t>(marks_.back());
    marks_.pop_back();
    std::vector<ObjPtr> out(std::make_move_iterator(stack_.begin() + m),
                            std::make_move_iterator(stack_.end()));
    stack_.resize(static_cast<std::size_t>(m));
    return out;
  }

  void step(uint8_t code);

  std::string_view data_;
  ObjArena& arena_;
  Policy& policy_;
  std::size_t pos_ = 0;
  std::size_t op_pos_ = 0;
  std::vector<ObjPtr> stack_;
  std::vector<std::size_t> marks_;
  std::unordered_map<uint64_t, ObjPtr> memo_;
};

void Machine::step(uint8_t code) {
  switch (code) {
    case op::kProto: {
      const uint64_t v = read_le(1);
      if (v > 5) fail("unsupported pickle protocol " + std::to_string(v));
      break;
    }
    case op::kFrame:
      read_le(8);
      break;  // framing is only a read-ahead hint
    case op::kMark:
      marks_.push_back(stack_.size());
      break;
    case op::kPop:
      pop();
      break;
    case op::kPopMark:
      pop_mark();
      break;
    case op::kDup:
      push(top_ptr());
      break;
    case op::kNone:
      push(arena_.make(Kind::kNone));
      break;
    case op::kNewTrue:
    case op::kNewFalse: {
      ObjPtr o = arena_.make(Kind::kBool);
      o->i = code == op::kNewTrue;
      push(std::move(o));
      break;
    }
    case op::kBinInt:
      push(arena_.make_int(static_cast<int32_t>(read_le(4))));
      break;
    case op::kBinInt1:
      push(arena_.make_int(static_cast<int64_t>(read_le(1))));
      break;
    case op::kBinInt2:
      push(arena_.make_int(static_cast<int64_t>(read_le(2))));
      break;
    case op::kLong1:
    case op::kLong4: {  // little-endian two's complement of n bytes
      const uint64_t n = code == op::kLong1 ? read_le(1) : read_le(4);
      if (n > 8) fail("integer wider than 64 bits");
      const std::string_view b = take(n);
      uint64_t v = 0;
      for (std::size_t i = n; i-- > 0;) v = (v << 8) | static_cast<unsigned char>(b[i]);
      if (n > 0 && n < 8 && (static_cast<unsigned char>(b[n - 1]) & 0x80)) {
        v |= ~uint64_t(0) << (8 * n);  // sign-extend
      }
      push(arena_.make_int(static_cast<int64_t>(v)));
      break;
    }
    case op::kBinFloat: {
      uint64_t bits = 0;
      for (char c : take(8)) bits = (bits << 8) | static_cast<unsigned char>(c);  // big-endian
      ObjPtr o = arena_.make(Kind::kFloat);
      o->f = std::bit_cast<double>(bits);
      push(std::move(o));
      break;
    }
    case op::kShortBinUnicode:
      push(arena_.make_str(take(read_le(1))));
      break;
    case op::kBinUnicode:
      push(arena_.make_str(take(read_le(4))));
      break;
    case op::kBinUnicode8:
      push(arena_.make_str(take(read_le(8))));
      break;
    case op::kBinBytes:
    case op::kShortBinBytes:
    case op::kBinBytes8:
      fail("bytes objects are not supported");
    case op::kEmptyList:
      push(arena_.make(Kind::kList));
      break;
    case op::kEmptyTuple:
      push(arena_.make(Kind::kTuple));
      break;
    case op::kEmptyDict:
      push(arena_.make(Kind::kDict));
      break;
    case op::kList:
      push(arena_.make_seq(Kind::kList, pop_mark()));
      break;
    case op::kTuple:
      push(arena_.make_seq(Kind::kTuple, pop_mark()));
      break;
    case op::kTuple1:
    case op::kTuple2:
    case op::kTuple3: {
      std::vector<ObjPtr> items(code - op::kTuple1 + 1u);
      for (std::size_t i = items.size(); i-- > 0;) items[i] = pop();
      push(arena_.make_seq(Kind::kTuple, std::move(items)));
      break;
    }
    case op::kDict: {
      std::vector<ObjPtr> kv = pop_mark();
      if (kv.size() % 2) fail("DICT needs an even number of items");
      ObjPtr d = arena_.make(Kind::kDict);
      for (std::size_t i = 0; i < kv.size(); i += 2) ObjArena::set_item(*d, kv[i], kv[i + 1]);
      push(std::move(d));
      break;
    }
    case op::kAppend: {
      ObjPtr v = pop();
      Obj& list = top();
      if (list.kind != Kind::kList) fail("APPEND target is not a list");
      list.items.push_back(std::move(v));
      break;
    }
    case op::kAppends: {
      std::vector<ObjPtr> vs = pop_mark();
      Obj& list = top();
      if (list.kind != Kind::kList) fail("APPENDS target is not a list");
      for (ObjPtr& v : vs) list.items.push_back(std::move(v));
      break;
    }
    case op::kSetItem: {
      ObjPtr v = pop();
      ObjPtr k = pop();
      ObjArena::set_item(top(), std::move(k), std::move(v));
      break;
    }
    case op::kSetItems: {
      std::vector<ObjPtr> kv = pop_mark();
      if (kv.size() % 2) fail("SETITEMS needs an even number of items");
      Obj& d = top();
      for (std::size_t i = 0; i < kv.size(); i += 2) ObjArena::set_item(d, kv[i], kv[i + 1]);
      break;
    }
    case op::kBinPut:
    case op::kLongBinPut: {
      const uint64_t idx = read_le(code == op::kBinPut ? 1 : 4);
      memo_[idx] = top_ptr();
      break;
    }
    case op::kMemoize: {
      const uint64_t idx = memo_.size();
      memo_[idx] = top_ptr();
      break;
    }
    case op::kBinGet:
    case op::kLongBinGet: {
      const uint64_t idx = read_le(code == op::kBinGet ? 1 : 4);
      auto it = memo_.find(idx);
      if (it == memo_.end()) fail("memo key " + std::to_string(idx) + " not found");
      push(it->second);
      break;
    }
    case op::kGlobal: {
      const std::string_view module = read_line();
      const std::string_view name = read_line();
      push(policy_.resolve_global(module, name));
      break;
    }
    case op::kStackGlobal: {
      ObjPtr name = pop();
      ObjPtr module = pop();
      if (name->kind != Kind::kStr || module->kind != Kind::kStr) {
        fail("STACK_GLOBAL needs two strings");
      }
      push(policy_.resolve_global(module->s, name->s));
      break;
    }
    case op::kReduce:
    case op::kNewObj: {
      ObjPtr args = pop();
      ObjPtr fn = pop();
      if (args->kind != Kind::kTuple) fail("REDUCE/NEWOBJ arguments are not a tuple");
      push(policy_.call(*fn, args->items));
      break;
    }
    case op::kBuild: {
      ObjPtr state = pop();
      policy_.build(top(), *state);
      break;
    }
    case op::kBinPersId: {
      ObjPtr pid = pop();
      push(policy_.persistent_load(*pid));
      break;
    }
    default:
      fail("unsupported opcode " + hex_byte(code) +
           " (only binary protocols 2-5 as written by torch.save are supported)");
  }
}

// Graph -> PtValue, charging every node against a byte budget.
class Converter {
 public:
  Converter(std::size_t max_depth, uint64_t budget) : max_depth_(max_depth), budget_(budget) {}

  PtValue convert(const ObjPtr& o, std::size_t depth) {
    if (depth > max_depth_) fail("nesting deeper than " + std::to_string(max_depth_) + " levels");
    charge(sizeof(PtValue));
    switch (o->kind) {
      case Kind::kNone:
        return PtValue();
      case Kind::kBool:
        return PtValue(o->i != 0);
      case Kind::kInt:
        return PtValue(o->i);
      case Kind::kFloat:
        return PtValue(o->f);
      case Kind::kStr:
        charge(o->s.size());
        return PtValue(o->s);
      case Kind::kTensor:
        charge(16 * o->tensor->shape.size() + o->tensor->storage_key.size() +
               o->tensor->device.size());
        return PtValue(*o->tensor);
      case Kind::kGlobal:
        fail("result contains a bare reference to " + quote_for_message(o->s));
      case Kind::kStorage:
        fail("result contains a bare storage (only tensors are supported)");
      default:
        break;
    }
    // Containers: a cycle has no finite tree form.
    if (o->converting) fail("result contains a reference cycle");
    o->converting = true;
    struct Reset {
      Obj& obj;
      ~Reset() { obj.converting = false; }
    } reset{*o};
    if (o->kind == Kind::kDict) {
      PtDict d;
      d.items.reserve(o->dict->entries.size());
      for (const auto& [k, v] : o->dict->entries) {
        PtValue key = convert(k, depth + 1);
        d.items.emplace_back(std::move(key), convert(v, depth + 1));
      }
      return PtValue(std::move(d));
    }
    std::vector<PtValue> items;
    items.reserve(o->items.size());
    for (const ObjPtr& it : o->items) items.push_back(convert(it, depth + 1));
    if (o->kind == Kind::kList) return PtValue(PtList{std::move(items)});
    return PtValue(PtTuple{std::move(items)});
  }

 private:
  void charge(uint64_t bytes) {
    if (bytes > budget_) {
      fail("result exceeds the size limit (memo references expand into too large a tree)");
    }
    budget_ -= bytes;
  }

  std::size_t max_depth_;
  uint64_t budget_;
};

}  // namespace

ObjArena::~ObjArena() {
  for (const ObjPtr& c : containers_) {
    c->items.clear();
    if (c->dict) c->dict->entries.clear();
  }
}

ObjPtr ObjArena::make(Kind k) {
  auto o = std::make_shared<Obj>(k);
  if (k == Kind::kList || k == Kind::kTuple || k == Kind::kDict) containers_.push_back(o);
  if (k == Kind::kDict) o->dict = std::make_unique<DictData>();
  return o;
}

ObjPtr ObjArena::make_int(int64_t v) {
  ObjPtr o = make(Kind::kInt);
  o->i = v;
  return o;
}

ObjPtr ObjArena::make_str(std::string_view s) {
  ObjPtr o = make(Kind::kStr);
  o->s = s;
  return o;
}

ObjPtr ObjArena::make_seq(Kind k, std::vector<ObjPtr> items) {
  ObjPtr o = make(k);
  o->items = std::move(items);
  return o;
}

void ObjArena::set_item(Obj& d, ObjPtr key, ObjPtr value) {
  if (d.kind != Kind::kDict) fail("SETITEM(S) target is not a dict");
  std::string enc;
  if (!encode_key(*key, enc, true)) fail("unsupported dict key type");
  auto [it, inserted] = d.dict->index.emplace(std::move(enc), d.dict->entries.size());
  if (inserted) {
    d.dict->entries.emplace_back(std::move(key), std::move(value));
  } else {
    d.dict->entries[it->second].second = std::move(value);
  }
}

ObjPtr run(std::string_view data, ObjArena& arena, Policy& policy) {
  return Machine(data, arena, policy).run();
}

PtValue to_pt_value(const ObjPtr& root, std::size_t max_depth, uint64_t budget_bytes) {
  return Converter(max_depth, budget_bytes).convert(root, 0);
}

}  // namespace tc::serialize::detail::pickle
