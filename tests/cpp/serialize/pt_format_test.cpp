// Tests for the torch.save (.pt) reader: ZIP container, restricted unpickler, and real
// checkpoints produced by tests/data/make_serialize_fixtures.py when torch is available.
#include "tensorcore/serialize/pt_format.h"

#include <gtest/gtest.h>

#include <complex>
#include <cstring>
#include <functional>
#include <map>

#include "tensorcore/serialize/pickle_reader.h"
#include "tensorcore/serialize/zip_reader.h"
#include "tests/cpp/serialize/serialize_test_util.h"

namespace ts = tc::serialize;
using ts::FormatError;
using ts::PtDict;
using ts::PtTensorRecord;
using ts::PtValue;
using ts::testing::make_pt;
using ts::testing::PickleBuilder;

namespace {

// Element at multi-index `idx`, honoring strides and storage offset.
template <typename T>
T elem(const PtTensorRecord& t, const std::vector<int64_t>& idx) {
  int64_t off = t.storage_offset;
  for (std::size_t d = 0; d < idx.size(); ++d) off += idx[d] * t.strides[d];
  T v;
  std::memcpy(&v, t.storage->data() + off * static_cast<int64_t>(sizeof(T)), sizeof(T));
  return v;
}

const PtTensorRecord& tensor_at(const PtValue& dict, std::string_view key) {
  const PtValue* v = dict.find(key);
  if (!v) throw std::runtime_error("missing key " + std::string(key));
  return v->as<PtTensorRecord>();
}

void expect_error(const std::function<void()>& fn, const std::string& needle) {
  try {
    fn();
    ADD_FAILURE() << "expected FormatError containing \"" << needle << "\"";
  } catch (const FormatError& e) {
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos)
        << "message: " << e.what() << "\nexpected to contain: " << needle;
  }
}

void expect_pt_error(const std::string& bytes, const std::string& needle) {
  expect_error([&] { ts::read_pt(bytes); }, needle);
}

// {"x": tensor(storage '0', F32, numel 4, offset, size, stride)} as a full archive.
std::string one_tensor_pt(int offset, const std::vector<int>& size, const std::vector<int>& stride,
                          int numel = 4, std::string storage = std::string(16, '\0')) {
  PickleBuilder p;
  p.proto().empty_dict().mark().str("x").tensor("FloatStorage", "0", numel, offset, size, stride);
  p.setitems().stop();
  return make_pt(p.bytes(), {{"0", std::move(storage)}});
}

std::string float_bytes(std::initializer_list<float> v) {
  std::string out(v.size() * 4, '\0');
  std::memcpy(out.data(), std::data(v), out.size());
  return out;
}

// Skips (or fails) the calling test when the torch fixtures are unavailable.
#define REQUIRE_TORCH_FIXTURES(fx)                    \
  const auto& fx = ts::testing::TorchFixtures::get(); \
  if (fx.failed) FAIL() << fx.reason;                 \
  if (fx.dir.empty()) GTEST_SKIP() << fx.reason

}  // namespace

// ---- hand-built archives ----

TEST(PtFormat, ReadsMinimalTensor) {
  PickleBuilder p;
  p.proto()
      .empty_dict()
      .mark()
      .str("x")
      .tensor("FloatStorage", "0", 4, 1, {3}, {1})
      .setitems()
      .stop();
  for (bool zip64 : {false, true}) {
    const PtValue v =
        ts::read_pt(make_pt(p.bytes(), {{"0", float_bytes({1, 2, 3, 4})}}, zip64, "any_name"));
    const auto& t = tensor_at(v, "x");
    EXPECT_EQ(t.dtype, "F32");
    EXPECT_EQ(t.shape, (std::vector<int64_t>{3}));
    EXPECT_EQ(t.storage_offset, 1);
    EXPECT_EQ(t.storage_key, "0");
    EXPECT_EQ(t.device, "cpu");
    EXPECT_FALSE(t.requires_grad);
    EXPECT_EQ(elem<float>(t, {2}), 4.0f);
  }
}

TEST(PtFormat, ScalarsAndContainers) {
  PickleBuilder p;
  p.proto().empty_list().mark();
  p.int1(255).raw("M").raw(std::string("\xFF\xFF", 2)).int4(-5);
  p.raw("\x8a\x08").raw(std::string("\0\0\0\0\0\0\0\x80", 8));  // LONG1 -2**63
  p.raw(std::string("\x8a\x00", 2));                            // LONG1 0
  p.raw("G").raw(std::string("\x40\x04\0\0\0\0\0\0", 8));       // BINFLOAT 2.5
  p.str("caf\xC3\xA9").raw("\x8c\x01y").none().boolean(true).boolean(false);
  p.mark().str("a").int1(1).str("a").int1(2).int1(7).str("seven").raw("d");  // DICT, 'a' twice
  p.int1(1).int1(2).raw("\x86").empty_tuple();
  p.appends().stop();
  const PtValue v = ts::read_pt(make_pt(p.bytes(), {}));
  const auto& items = v.as<ts::PtList>().items;
  ASSERT_EQ(items.size(), 14u);
  EXPECT_EQ(items[0].as<int64_t>(), 255);
  EXPECT_EQ(items[1].as<int64_t>(), 65535);
  EXPECT_EQ(items[2].as<int64_t>(), -5);
  EXPECT_EQ(items[3].as<int64_t>(), INT64_MIN);
  EXPECT_EQ(items[4].as<int64_t>(), 0);
  EXPECT_EQ(items[5].as<double>(), 2.5);
  EXPECT_EQ(items[6].as<std::string>(), "caf\xC3\xA9");
  EXPECT_EQ(items[7].as<std::string>(), "y");
  EXPECT_TRUE(items[8].is_none());
  EXPECT_TRUE(items[9].as<bool>());
  EXPECT_FALSE(items[10].as<bool>());
  const auto& d = items[11].as<PtDict>().items;
  ASSERT_EQ(d.size(), 2u);  // later 'a' replaced the earlier value in place
  EXPECT_EQ(d[0].first.as<std::string>(), "a");
  EXPECT_EQ(d[0].second.as<int64_t>(), 2);
  EXPECT_EQ(d[1].first.as<int64_t>(), 7);
  EXPECT_EQ(items[12].as<ts::PtTuple>().items[1].as<int64_t>(), 2);
  EXPECT_EQ(items[13].as<ts::PtTuple>().items.size(), 0u);
  EXPECT_EQ(items[11].find("a")->as<int64_t>(), 2);
  expect_error([&] { (void)items[0].as<PtDict>(); }, "expected a dict value but found int");
  // Value semantics: copies (including from non-const lvalues) are deep and independent.
  PtValue copy = items[11];
  PtValue copy2 = copy;
  std::get<PtDict>(copy.value).items.clear();
  EXPECT_EQ(copy2.as<PtDict>().items.size(), 2u);
  EXPECT_EQ(PtValue(int64_t{3}).type_name(), "int");
  EXPECT_EQ(PtValue(std::string("s")).type_name(), "str");
}

TEST(PtFormat, ParameterAndRebuildFromType) {
  PickleBuilder p;
  p.proto().empty_list().mark();
  p.global("torch._utils", "_rebuild_parameter").mark();
  p.tensor("DoubleStorage", "0", 2, 0, {2}, {1}).boolean(true).global("collections", "OrderedDict");
  p.empty_tuple().reduce().tuple().reduce();
  p.global("torch._tensor", "_rebuild_from_type_v2").mark();
  p.global("torch._utils", "_rebuild_tensor_v2").global("torch", "Tensor").mark();
  p.mark()
      .str("storage")
      .global("torch", "LongStorage")
      .str("1")
      .str("cuda:0")
      .int1(1)
      .tuple()
      .raw("Q");
  p.int1(0)
      .empty_tuple()
      .empty_tuple()
      .boolean(false)
      .empty_dict()
      .tuple()
      .empty_dict()
      .tuple()
      .reduce();
  p.global("torch", "Size").mark().int1(2).int1(3).tuple().raw("\x85").reduce();
  p.appends().stop();
  const PtValue v = ts::read_pt(
      make_pt(p.bytes(), {{"0", std::string(16, '\0')}, {"1", std::string(8, '\x01')}}));
  const auto& items = v.as<ts::PtList>().items;
  ASSERT_EQ(items.size(), 3u);
  EXPECT_TRUE(items[0].as<PtTensorRecord>().requires_grad);
  EXPECT_EQ(items[0].as<PtTensorRecord>().dtype, "F64");
  const auto& scalar = items[1].as<PtTensorRecord>();
  EXPECT_EQ(scalar.dtype, "I64");
  EXPECT_TRUE(scalar.shape.empty());
  EXPECT_EQ(scalar.device, "cuda:0");
  EXPECT_EQ(scalar.numel(), 1);
  EXPECT_EQ(items[2].as<ts::PtTuple>().items[1].as<int64_t>(), 3);
}

TEST(PtFormat, CollectTensorsBuildsDottedPaths) {
  PickleBuilder p;
  p.proto().empty_dict().mark().str("model").empty_dict().mark().str("fc.weight");
  p.tensor("FloatStorage", "0", 4, 0, {2, 2}, {2, 1}).setitems();
  p.str("list").empty_list().mark().int1(1).tensor("FloatStorage", "0", 4, 0, {4}, {1}).appends();
  p.setitems().stop();
  const PtValue v = ts::read_pt(make_pt(p.bytes(), {{"0", float_bytes({1, 2, 3, 4})}}));
  const auto all = ts::collect_pt_tensors(v);
  ASSERT_EQ(all.size(), 2u);
  EXPECT_EQ(all[0].first, "model.fc.weight");
  EXPECT_EQ(all[1].first, "list.1");
  EXPECT_EQ(all[0].second->storage.get(), all[1].second->storage.get());  // one shared storage
  EXPECT_TRUE(all[0].second->is_contiguous());
}

TEST(PtFormat, RejectsUnsafeOrUnknownGlobals) {
  auto with_global = [](const char* module, const char* name) {
    PickleBuilder p;
    p.proto().global(module, name).mark().str("echo hi").tuple().reduce().stop();
    return make_pt(p.bytes(), {});
  };
  expect_pt_error(with_global("os", "system"), "refusing to load unsupported global 'os.system'");
  expect_pt_error(with_global("builtins", "eval"), "'builtins.eval'");
  expect_pt_error(with_global("torch._utils", "_rebuild_qtensor"),
                  "'torch._utils._rebuild_qtensor'");
  expect_pt_error(with_global("torch", "FloatStorage"), "'torch.FloatStorage' is not callable");
  PickleBuilder sg;  // protocol 4 STACK_GLOBAL
  sg.proto(4).raw("\x8c\x05posix\x8c\x06system\x93").stop();
  expect_pt_error(make_pt(sg.bytes(), {}), "'posix.system'");
  PickleBuilder bare;
  bare.proto().global("collections", "OrderedDict").stop();
  expect_pt_error(make_pt(bare.bytes(), {}), "bare reference to 'collections.OrderedDict'");
}

TEST(PtFormat, RejectsMalformedPickles) {
  auto pt = [](const std::string& pickle) { return make_pt(pickle, {}); };
  expect_pt_error(pt("\x80\x02"), "without a STOP opcode");
  expect_pt_error(pt("\x80\x02."), "stack underflow");
  expect_pt_error(pt("\x80\x02"
                     "a."),
                  "stack underflow");
  expect_pt_error(pt("\x80\x02"
                     "(K\x01"
                     "a."),
                  "stack underflow");  // APPEND can't cross MARK
  expect_pt_error(pt("\x80\x02K\x01K\x02"
                     "a."),
                  "APPEND target is not a list");
  expect_pt_error(pt("\x80\x02}K\x01s."), "stack underflow");
  expect_pt_error(pt("\x80\x02}]K\x01s."), "unsupported dict key type");
  expect_pt_error(pt("\x80\x02h\x05."), "memo key 5 not found");
  expect_pt_error(pt("\x80\x02X\xff\xff\xff\x7f"), "truncated data");
  expect_pt_error(pt("\x80\x02"
                     "I01\n."),
                  "unsupported opcode 0x49");
  expect_pt_error(pt("\x80\x02"
                     "C\x02hi."),
                  "bytes objects are not supported");
  expect_pt_error(pt("\x80\x09N."), "unsupported pickle protocol 9");
  expect_pt_error(pt(std::string("\x80\x02\x8a\x09", 4) + std::string(9, '\x01') + "."),
                  "wider than 64 bits");
  expect_pt_error(pt("\x80\x02"
                     "ctorch\nSize"),
                  "unterminated GLOBAL");
  expect_pt_error(pt("\x80\x02"
                     "e."),
                  "MARK expected");
  expect_pt_error(pt(std::string("\x80\x02]q\0h\0a.", 9)), "reference cycle");
  expect_pt_error(pt("\x80\x02"
                     "K\x01K\x02"
                     "Q."),
                  "persistent id is not a 5-tuple");
}

TEST(PtFormat, BoundsNestingAndExpansion) {
  // A million nested 1-tuples: rejected by depth, and torn down without recursion.
  expect_pt_error(make_pt("\x80\x02N" + std::string(1'000'000, '\x85') + ".", {}),
                  "nesting deeper than 1000");
  // Each level is a list holding the previous level twice: 2^40 nodes from ~300 bytes.
  std::string bomb("\x80\x02]q\0", 5);
  for (int i = 0; i < 40; ++i) {
    bomb += "(h";
    bomb += static_cast<char>(i);
    bomb += "h";
    bomb += static_cast<char>(i);
    bomb += "lq";
    bomb += static_cast<char>(i + 1);
  }
  bomb += ".";
  const auto no_storage = [](const std::string&, const std::string&,
                             int64_t) -> std::shared_ptr<const std::string> { return nullptr; };
  expect_error(
      [&] {
        ts::detail::unpickle_torch(bomb, no_storage, {1000, 1 << 20, 0});
      },
      "size limit");
  expect_pt_error(make_pt(bomb, {}), "size limit");
}

TEST(PtFormat, ValidatesTensorsAgainstStorage) {
  EXPECT_NO_THROW(ts::read_pt(one_tensor_pt(0, {2, 2}, {2, 1})));
  EXPECT_NO_THROW(ts::read_pt(one_tensor_pt(3, {0, 5}, {9, 9})));  // empty: no extent check
  expect_pt_error(one_tensor_pt(2, {3}, {1}), "reads past the end of storage '0' (4 elements)");
  expect_pt_error(one_tensor_pt(0, {2, 2}, {3, 1}), "reads past the end");
  expect_pt_error(one_tensor_pt(0, {2}, {1, 1}), "size and stride lengths differ");
  expect_pt_error(one_tensor_pt(0, {4}, {1}, 4, std::string(12, '\0')),
                  "has 12 bytes but data.pkl declares 4 elements of F32");
  expect_pt_error(
      make_pt(PickleBuilder().proto().tensor("FloatStorage", "7", 1, 0, {1}, {1}).stop().bytes(),
              {}),
      "storage '7' referenced by data.pkl is missing");
  expect_pt_error(
      make_pt(PickleBuilder().proto().tensor("QInt8Storage", "0", 1, 0, {1}, {1}).stop().bytes(),
              {}),
      "'torch.QInt8Storage'");
}

TEST(PtFormat, RejectsBadContainers) {
  expect_pt_error("", "not a torch.save checkpoint");
  expect_pt_error("hello world", "not a torch.save checkpoint");
  expect_pt_error(std::string("\x80\x02\x8a\x0a", 4) + "garbage",
                  "legacy (pre-1.6) torch.save format is not supported");
  expect_pt_error("PK\x03\x04 truncated archive without its end records",
                  "end of central directory record not found");
  ts::testing::ZipBuilder no_pkl;
  no_pkl.add("archive/version", "3\n");
  expect_pt_error(no_pkl.build(), "no '<folder>/data.pkl' record");
  ts::testing::ZipBuilder compressed;
  compressed.add("archive/data.pkl", "\x80\x02N.", 8);
  expect_pt_error(compressed.build(), "is compressed (deflate)");
  ts::testing::ZipBuilder script;
  script.add("archive/data.pkl", "\x80\x02N.");
  script.add("archive/constants.pkl", "\x80\x02N.");
  expect_pt_error(script.build(), "TorchScript archive");
  ts::testing::ZipBuilder big_endian;
  big_endian.add("archive/data.pkl", "\x80\x02N.");
  big_endian.add("archive/byteorder", "big");
  expect_pt_error(big_endian.build(), "unsupported byteorder 'big'");
}

TEST(PtFormat, DetectsCorruptZip) {
  const std::string storage = float_bytes({1, 2, 3, 4});
  const std::string good = one_tensor_pt(0, {4}, {1}, 4, storage);
  EXPECT_NO_THROW(ts::read_pt(good));
  // A trailing archive comment is allowed.
  std::string commented = good;
  commented[commented.size() - 2] = 5;
  EXPECT_NO_THROW(ts::read_pt(commented + "hello"));
  // Flip a byte of the storage data: caught by CRC unless verification is off.
  std::string flipped = good;
  const std::size_t at = flipped.find(storage);
  ASSERT_NE(at, std::string::npos);
  flipped[at] ^= 0x40;
  expect_pt_error(flipped, "fails its CRC-32 check");
  EXPECT_NO_THROW(ts::read_pt(flipped, {.verify_storage_crc = false}));
  // Every truncation must fail cleanly; every byte flip must either parse or fail cleanly.
  for (std::size_t len = 0; len < good.size(); ++len) {
    EXPECT_THROW(ts::read_pt(std::string_view(good).substr(0, len)), FormatError) << len;
  }
  for (std::size_t i = 0; i < good.size(); ++i) {
    std::string m = good;
    m[i] ^= 0x21;
    try {
      ts::read_pt(m);
    } catch (const FormatError&) {
    }
  }
}

TEST(PtFormat, EveryPickleTruncationFailsCleanly) {
  PickleBuilder p;
  p.proto().empty_dict().mark().str("x").tensor("FloatStorage", "0", 4, 0, {2, 2}, {2, 1});
  p.str("y").empty_list().mark().int1(1).str("s").none().appends().setitems().stop();
  const std::string& pk = p.bytes();
  ASSERT_NO_THROW(ts::read_pt(make_pt(pk, {{"0", std::string(16, '\0')}})));
  for (std::size_t len = 0; len < pk.size(); ++len) {
    EXPECT_THROW(ts::read_pt(make_pt(pk.substr(0, len), {{"0", std::string(16, '\0')}})),
                 FormatError)
        << len;
  }
}

// ---- real torch.save output ----

namespace {

void check_state_dict(const PtValue& sd) {
  ASSERT_TRUE(sd.is<PtDict>());
  const auto& w = tensor_at(sd, "w");
  EXPECT_EQ(w.dtype, "F32");
  EXPECT_EQ(w.shape, (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(w.strides, (std::vector<int64_t>{3, 1}));
  EXPECT_EQ(elem<float>(w, {1, 2}), 5.0f);
  const auto& t = tensor_at(sd, "t");
  EXPECT_EQ(t.strides, (std::vector<int64_t>{1, 3}));
  EXPECT_FALSE(t.is_contiguous());
  EXPECT_EQ(t.storage.get(), w.storage.get()) << "views share one storage";
  EXPECT_EQ(elem<float>(t, {2, 1}), 5.0f);
  const auto& view = tensor_at(sd, "view");
  EXPECT_EQ(view.storage_offset, 2);
  EXPECT_EQ(view.strides, (std::vector<int64_t>{2}));
  EXPECT_EQ(elem<float>(view, {2}), 6.0f);
  EXPECT_EQ(elem<int64_t>(tensor_at(sd, "b"), {2}), int64_t(1) << 40);
  EXPECT_EQ(elem<double>(tensor_at(sd, "f64"), {1}), -1.5);
  EXPECT_EQ(elem<uint16_t>(tensor_at(sd, "f16"), {1}), 0xC000);   // -2.0 as float16
  EXPECT_EQ(elem<uint16_t>(tensor_at(sd, "bf16"), {2}), 0xC040);  // -3.0 as bfloat16
  EXPECT_EQ(tensor_at(sd, "bf16").dtype, "BF16");
  EXPECT_EQ(elem<int32_t>(tensor_at(sd, "i32"), {1}), -8);
  EXPECT_EQ(elem<int16_t>(tensor_at(sd, "i16"), {0}), -300);
  EXPECT_EQ(elem<int8_t>(tensor_at(sd, "i8"), {0}), -128);
  EXPECT_EQ(elem<uint8_t>(tensor_at(sd, "u8"), {1}), 255);
  EXPECT_EQ(tensor_at(sd, "mask").dtype, "BOOL");
  EXPECT_EQ(elem<uint8_t>(tensor_at(sd, "mask"), {1}), 0);
  EXPECT_EQ(elem<std::complex<float>>(tensor_at(sd, "c64"), {1}), std::complex<float>(-3, -4));
  EXPECT_EQ(elem<std::complex<double>>(tensor_at(sd, "c128"), {0}),
            std::complex<double>(0.5, -0.25));
  const auto& scalar = tensor_at(sd, "scalar");
  EXPECT_TRUE(scalar.shape.empty());
  EXPECT_EQ(elem<float>(scalar, {}), 3.5f);
  EXPECT_EQ(tensor_at(sd, "empty").shape, (std::vector<int64_t>{0, 3}));
  EXPECT_TRUE(tensor_at(sd, "grad").requires_grad);
  EXPECT_TRUE(tensor_at(sd, "param").requires_grad);
  EXPECT_EQ(elem<float>(tensor_at(sd, "param"), {1}), 2.0f);
  EXPECT_FALSE(w.requires_grad);

  const auto& misc = sd.find("misc")->as<ts::PtList>().items;
  ASSERT_EQ(misc.size(), 10u);
  EXPECT_EQ(misc[0].as<int64_t>(), 1);
  EXPECT_EQ(misc[1].as<int64_t>(), -5);
  EXPECT_EQ(misc[2].as<int64_t>(), int64_t(1) << 40);
  EXPECT_EQ(misc[3].as<double>(), 2.5);
  EXPECT_EQ(misc[4].as<std::string>(), "x");
  EXPECT_TRUE(misc[5].is_none());
  EXPECT_TRUE(misc[6].as<bool>());
  EXPECT_FALSE(misc[7].as<bool>());
  EXPECT_EQ(misc[8].as<ts::PtTuple>().items[1].as<std::string>(), "a");
  const auto& d = misc[9].as<PtDict>().items;
  ASSERT_EQ(d.size(), 2u);
  EXPECT_EQ(d[1].first.as<int64_t>(), 3);
  EXPECT_EQ(d[1].second.as<std::string>(), "int key");
  EXPECT_EQ(ts::collect_pt_tensors(sd).size(), 18u);
}

}  // namespace

TEST(PtFixtures, StateDict) {
  REQUIRE_TORCH_FIXTURES(fx);
  check_state_dict(ts::read_pt_file(fx.dir / "state_dict.pt"));
  check_state_dict(ts::read_pt(ts::detail::read_whole_file(fx.dir / "state_dict.pt")));
}

TEST(PtFixtures, StateDictProtocol4) {
  REQUIRE_TORCH_FIXTURES(fx);
  check_state_dict(ts::read_pt_file(fx.dir / "state_dict_p4.pt"));
}

TEST(PtFixtures, ModuleStateDict) {
  REQUIRE_TORCH_FIXTURES(fx);
  const PtValue sd = ts::read_pt_file(fx.dir / "module.pt");
  const auto tensors = ts::collect_pt_tensors(sd);
  ASSERT_EQ(tensors.size(), 2u);
  EXPECT_EQ(tensors[0].first, "weight");
  EXPECT_EQ(tensors[1].first, "bias");
  EXPECT_EQ(elem<float>(*tensors[0].second, {1, 2}), 0.5f);
  EXPECT_EQ(elem<float>(*tensors[1].second, {0}), -1.0f);
}

TEST(PtFixtures, OptimizerStateDict) {
  REQUIRE_TORCH_FIXTURES(fx);
  const PtValue sd = ts::read_pt_file(fx.dir / "optimizer.pt");
  const auto& state = sd.find("state")->as<PtDict>().items;
  ASSERT_EQ(state.size(), 1u);
  EXPECT_EQ(state[0].first.as<int64_t>(), 0);
  const auto& exp_avg = tensor_at(state[0].second, "exp_avg");
  EXPECT_NEAR(elem<float>(exp_avg, {0}), 0.05f, 1e-7);
  const auto& group = sd.find("param_groups")->as<ts::PtList>().items.at(0);
  EXPECT_DOUBLE_EQ(group.find("lr")->as<double>(), 0.1);
  EXPECT_EQ(group.find("betas")->as<ts::PtTuple>().items.size(), 2u);
  EXPECT_EQ(group.find("params")->as<ts::PtList>().items.at(0).as<int64_t>(), 0);
}

TEST(PtFixtures, LegacyFormatIsRejected) {
  REQUIRE_TORCH_FIXTURES(fx);
  expect_error([&] { ts::read_pt_file(fx.dir / "legacy.pt"); },
               "legacy (pre-1.6) torch.save format is not supported; re-save with torch.save(");
}

TEST(PtFixtures, RealPickleSurvivesTruncationAndFlips) {
  REQUIRE_TORCH_FIXTURES(fx);
  // Re-wrap the real data.pkl with valid CRCs so corruption reaches the unpickler.
  const std::string file = ts::detail::read_whole_file(fx.dir / "state_dict.pt");
  const ts::detail::MemorySource src(file);
  const ts::detail::ZipReader zip(src);
  std::string pickle;
  std::map<std::string, std::string> storages;
  for (const auto& e : zip.entries()) {
    if (e.name.ends_with("/data.pkl")) pickle = zip.read(e);
    const auto pos = e.name.find("/data/");
    if (pos != std::string::npos) storages[e.name.substr(pos + 6)] = zip.read(e);
  }
  ASSERT_FALSE(pickle.empty());
  check_state_dict(ts::read_pt(make_pt(pickle, storages)));
  for (std::size_t len = 0; len < pickle.size(); ++len) {
    EXPECT_THROW(ts::read_pt(make_pt(pickle.substr(0, len), storages)), FormatError) << len;
  }
  for (std::size_t i = 0; i < pickle.size(); ++i) {
    for (int bit : {0x01, 0x80}) {
      std::string m = pickle;
      m[i] = static_cast<char>(m[i] ^ bit);
      try {
        ts::read_pt(make_pt(m, storages));
      } catch (const FormatError&) {
      }
    }
  }
}
