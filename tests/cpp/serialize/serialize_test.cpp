// Tests for the JSON helper and the safetensors reader/writer (tensorcore/serialize).
#include <gtest/gtest.h>

#include <complex>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "tensorcore/serialize/json.h"
#include "tensorcore/serialize/safetensors_format.h"
#include "tests/cpp/serialize/serialize_test_util.h"

namespace ts = tc::serialize;
using ts::FormatError;
using ts::RawTensor;

namespace {

template <typename T>
std::string bytes_of(std::initializer_list<T> values) {
  std::string out(values.size() * sizeof(T), '\0');
  std::memcpy(out.data(), std::data(values), out.size());
  return out;
}

std::string header_only(const std::string& json, const std::string& buffer = "") {
  std::string out;
  ts::testing::put_le(out, json.size(), 8);
  return out + json + buffer;
}

// Asserts that reading `data` fails with a FormatError whose message contains `needle`.
void expect_read_error(const std::string& data, const std::string& needle) {
  try {
    ts::read_safetensors(std::string_view(data));
    ADD_FAILURE() << "expected FormatError containing \"" << needle << "\"";
  } catch (const FormatError& e) {
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos)
        << "message: " << e.what() << "\nexpected to contain: " << needle;
  }
}

// The tensors make_serialize_fixtures.py's expected_safetensors() describes.
struct Expected {
  std::vector<std::string> storage;  // keeps bytes alive for the views
  ts::NamedRawTensors tensors;
  std::map<std::string, std::string> metadata{{"format", "pt"}, {"note", "caf\xC3\xA9 \"quoted\""}};

  Expected() {
    storage.reserve(32);
    add("weight", "F32", {2, 3}, bytes_of<float>({0, 1, 2, 3, 4, 5}));
    add("bias", "F64", {3}, bytes_of<double>({0.5, -1.5, 2.25}));
    // float16 1, -2, 0.5, 65504
    add("half", "F16", {2, 2}, bytes_of<uint16_t>({0x3C00, 0xC000, 0x3800, 0x7BFF}));
    // bfloat16 1, 2, -3, 0.5
    add("bf16", "BF16", {4}, bytes_of<uint16_t>({0x3F80, 0x4000, 0xC040, 0x3F00}));
    add("ids", "I64", {2, 2}, bytes_of<int64_t>({1, -2, int64_t(1) << 40, -(int64_t(1) << 62)}));
    add("i32", "I32", {3}, bytes_of<int32_t>({7, -8, 9}));
    add("i16", "I16", {2}, bytes_of<int16_t>({-300, 300}));
    add("u16", "U16", {2}, bytes_of<uint16_t>({1, 65535}));
    add("i8", "I8", {2}, bytes_of<int8_t>({-128, 127}));
    add("u8", "U8", {3}, bytes_of<uint8_t>({0, 128, 255}));
    add("mask", "BOOL", {3}, bytes_of<uint8_t>({1, 0, 1}));
    add("c64", "C64", {2}, bytes_of<std::complex<float>>({{1, 2}, {-3, -4}}));
    add("c128", "C128", {1}, bytes_of<std::complex<double>>({{0.5, -0.25}}));
    add("scalar", "F32", {}, bytes_of<float>({3.5f}));
    add("empty", "F32", {0, 4}, "");
  }
  void add(std::string name, std::string dtype, std::vector<int64_t> shape, std::string data) {
    storage.push_back(std::move(data));
    tensors.emplace_back(std::move(name),
                         RawTensor{std::move(dtype), std::move(shape), storage.back()});
  }
};

void expect_same(const ts::NamedRawTensors& a, const ts::NamedRawTensors& b) {
  ASSERT_EQ(a.size(), b.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].first, b[i].first);
    EXPECT_EQ(a[i].second.dtype, b[i].second.dtype) << a[i].first;
    EXPECT_EQ(a[i].second.shape, b[i].second.shape) << a[i].first;
    EXPECT_EQ(a[i].second.bytes, b[i].second.bytes) << a[i].first;
  }
}

}  // namespace

// ---- JSON ----

TEST(SerializeJson, ParsesAllValueKinds) {
  const auto v = ts::json::parse(
      R"( {"a": [1, -2.5e3, true, false, null], "b": {"c": "x\"y\\z\/\u00e9\ud83d\ude00\n"}} )");
  ASSERT_EQ(v.kind, ts::json::Value::Kind::kObject);
  const auto* a = v.find("a");
  ASSERT_NE(a, nullptr);
  ASSERT_EQ(a->array.size(), 5u);
  EXPECT_EQ(a->array[0].as_uint64(), 1u);
  EXPECT_EQ(a->array[1].text, "-2.5e3");
  EXPECT_FALSE(a->array[1].as_uint64().has_value());
  EXPECT_TRUE(a->array[2].boolean);
  EXPECT_EQ(a->array[4].kind, ts::json::Value::Kind::kNull);
  EXPECT_EQ(v.find("b")->find("c")->text, "x\"y\\z/\xC3\xA9\xF0\x9F\x98\x80\n");
}

TEST(SerializeJson, IntegerLimits) {
  EXPECT_EQ(ts::json::parse("18446744073709551615").as_uint64(), UINT64_MAX);
  EXPECT_FALSE(ts::json::parse("18446744073709551616").as_uint64().has_value());
  EXPECT_FALSE(ts::json::parse("-0").as_uint64().has_value());
  EXPECT_EQ(ts::json::parse("0").as_uint64(), 0u);
}

TEST(SerializeJson, RejectsMalformedInput) {
  for (const char* bad : {"",
                          "{",
                          "[1,]",
                          "{\"a\":1,}",
                          "{\"a\" 1}",
                          "01",
                          "1.",
                          "1e",
                          "-",
                          "+1",
                          "tru",
                          "nul",
                          "\"abc",
                          "\"\\x\"",
                          "\"\\u12\"",
                          "\"\\ud800\"",
                          "\"\\udc00\"",
                          "\"a\nb\"",
                          "\"\xC3\"",
                          "\"\xED\xA0\x80\"",
                          "[1] x",
                          "{\"a\":1,\"a\":2}",
                          "{1:2}",
                          "\x00",
                          "[\"\xFF\"]"}) {
    EXPECT_THROW(ts::json::parse(bad), FormatError) << "input: " << bad;
  }
}

TEST(SerializeJson, DepthLimit) {
  const std::string ok = std::string(10, '[') + std::string(10, ']');
  EXPECT_NO_THROW(ts::json::parse(ok, 10));
  const std::string deep = std::string(11, '[') + std::string(11, ']');
  EXPECT_THROW(ts::json::parse(deep, 10), FormatError);
  // Far deeper than the limit must fail cleanly, not overflow the stack.
  EXPECT_THROW(ts::json::parse(std::string(1 << 20, '['), 64), FormatError);
}

TEST(SerializeJson, QuoteRoundTrips) {
  const std::string s = std::string("a\"b\\c\n\t\x01\x1f caf\xC3\xA9") + '\0' + "end";
  std::string q;
  ts::json::append_quoted(q, s);
  EXPECT_EQ(ts::json::parse(q).text, s);
}

// ---- safetensors: writing and round trips ----

TEST(Safetensors, RoundTripAllDtypes) {
  Expected ex;
  const std::string blob = ts::write_safetensors(ex.tensors, ex.metadata);
  uint64_t n = 0;
  std::memcpy(&n, blob.data(), 8);
  EXPECT_EQ((8 + n) % 8, 0u) << "data must start 8-byte aligned";
  const ts::SafetensorsFile f = ts::read_safetensors(std::string_view(blob));
  expect_same(f.tensors, ex.tensors);
  EXPECT_EQ(f.metadata, ex.metadata);
  ASSERT_NE(f.find("ids"), nullptr);
  EXPECT_EQ(f.find("ids")->shape, (std::vector<int64_t>{2, 2}));
  EXPECT_EQ(f.find("nope"), nullptr);
}

TEST(Safetensors, RoundTripOddNamesAndEmpty) {
  const std::string data = bytes_of<float>({1, 2});
  ts::NamedRawTensors t{
      {"", {"F32", {1}, std::string_view(data).substr(0, 4)}},
      {"we\"ird\\na\nme \xE2\x9C\x93", {"F32", {1}, std::string_view(data).substr(4)}},
      {"zero", {"I64", {3, 0}, {}}}};
  const auto f = ts::read_safetensors(std::string_view(ts::write_safetensors(t)));
  expect_same(f.tensors, t);
  EXPECT_TRUE(f.metadata.empty());
  // No tensors at all is a valid file too.
  EXPECT_TRUE(ts::read_safetensors(std::string_view(ts::write_safetensors({}))).tensors.empty());
}

TEST(Safetensors, ZeroCopyReadSharesBuffer) {
  Expected ex;
  auto buffer = std::make_shared<const std::string>(ts::write_safetensors(ex.tensors));
  const auto f = ts::read_safetensors(buffer);
  EXPECT_EQ(f.buffer.get(), buffer.get());
  const auto& w = f.tensors[0].second.bytes;
  EXPECT_GE(w.data(), buffer->data());
  EXPECT_LE(w.data() + w.size(), buffer->data() + buffer->size());
  // Views survive the caller dropping its reference.
  const ts::SafetensorsFile copy = f;
  buffer.reset();
  EXPECT_EQ(copy.tensors[0].second.bytes, ex.tensors[0].second.bytes);
}

TEST(Safetensors, FileRoundTrip) {
  Expected ex;
  const auto path = std::filesystem::temp_directory_path() /
                    ("tc_ser_" + std::to_string(::getpid()) + ".safetensors");
  ts::write_safetensors_file(path, ex.tensors, ex.metadata);
  EXPECT_FALSE(std::filesystem::exists(path.string() + ".tmp"));
  const auto f = ts::read_safetensors_file(path);
  expect_same(f.tensors, ex.tensors);
  EXPECT_EQ(f.metadata, ex.metadata);
  std::filesystem::remove(path);
  EXPECT_THROW(ts::read_safetensors_file(path), ts::IoError);
  EXPECT_THROW(ts::write_safetensors_file("/nonexistent-dir/x.safetensors", ex.tensors),
               ts::IoError);
}

TEST(Safetensors, WriterRejectsInvalidInput) {
  const std::string four(4, '\0');
  auto write_one = [](std::string name, RawTensor t) {
    return ts::write_safetensors({{std::move(name), t}});
  };
  EXPECT_THROW(write_one("x", {"F31", {1}, four}), FormatError);
  EXPECT_THROW(write_one("x", {"F32", {2}, four}), FormatError);
  EXPECT_THROW(write_one("x", {"F32", {-1}, four}), FormatError);
  EXPECT_THROW(write_one("__metadata__", {"F32", {1}, four}), FormatError);
  EXPECT_THROW(write_one("bad\xFF", {"F32", {1}, four}), FormatError);
  EXPECT_THROW(ts::write_safetensors({{"a", {"F32", {1}, four}}, {"a", {"F32", {1}, four}}}),
               FormatError);
  EXPECT_THROW(ts::write_safetensors({}, {{"k", "\xC0\x80"}}), FormatError);
  try {
    write_one("w", {"F32", {2, 2}, std::string_view("0123456789ab")});
    ADD_FAILURE();
  } catch (const FormatError& e) {
    EXPECT_STREQ(e.what(), "safetensors: tensor 'w' has 12 bytes but shape [2, 2] of F32 needs 16");
  }
}

// ---- safetensors: corrupt input ----

TEST(Safetensors, RejectsBadLengthField) {
  expect_read_error("", "file too small (0 bytes)");
  expect_read_error("\x02\0\0\0", "file too small");
  expect_read_error(std::string(8, '\xFF'), "header length 18446744073709551615 exceeds");
  expect_read_error(header_only("{}").substr(0, 9), "exceeds the 1 bytes after the length field");
  std::string huge;
  ts::testing::put_le(huge, ts::kMaxSafetensorsHeaderBytes + 1, 8);
  huge.resize(8 + ts::kMaxSafetensorsHeaderBytes + 1, ' ');
  expect_read_error(huge, "exceeds the 104857600-byte limit");
}

TEST(Safetensors, RejectsBadJson) {
  expect_read_error(header_only(""), "must start with a JSON object");
  expect_read_error(header_only("[]"), "must start with a JSON object");
  expect_read_error(header_only("{\"a\":"), "header is not valid: invalid JSON: unexpected end");
  expect_read_error(header_only("{} x"), "unexpected trailing data");
  // NUL padding is not whitespace.
  expect_read_error(header_only(std::string("{}\0\0", 4)), "unexpected trailing data");
  expect_read_error(header_only("{\"a\":1,\"a\":2}"), "duplicate key 'a'");
  std::string deep;
  for (int i = 0; i < 40; ++i) deep += "{\"a\":";
  expect_read_error(header_only(deep), "nesting deeper than 16");
  expect_read_error(header_only("{\"\xFF\":1}"), "not valid UTF-8");
}

TEST(Safetensors, RejectsBadEntries) {
  auto entry = [](const std::string& body, const std::string& buffer = "") {
    return header_only("{\"w\":" + body + "}", buffer);
  };
  expect_read_error(entry("1"), "tensor 'w' must be an object, got number");
  expect_read_error(entry(R"({"shape":[],"data_offsets":[0,0]})"), "tensor 'w' is missing 'dtype'");
  expect_read_error(entry(R"({"dtype":"F32","data_offsets":[0,0]})"), "is missing 'shape'");
  expect_read_error(entry(R"({"dtype":"F32","shape":[]})"), "is missing 'data_offsets'");
  expect_read_error(entry(R"({"dtype":"F32","shape":[],"data_offsets":[0,4],"x":1})", "1234"),
                    "unknown field 'x'");
  expect_read_error(entry(R"({"dtype":"F31","shape":[],"data_offsets":[0,4]})", "1234"),
                    "unknown dtype 'F31'");
  expect_read_error(entry(R"({"dtype":7,"shape":[],"data_offsets":[0,4]})", "1234"),
                    "'dtype' must be a string");
  expect_read_error(entry(R"({"dtype":"F32","shape":[-1],"data_offsets":[0,4]})", "1234"),
                    "'shape' entries must be non-negative integers");
  expect_read_error(entry(R"({"dtype":"F32","shape":[1.0],"data_offsets":[0,4]})", "1234"),
                    "'shape' entries must be non-negative integers");
  expect_read_error(
      entry(R"({"dtype":"F32","shape":[9223372036854775808],"data_offsets":[0,4]})", "1234"),
      "'shape' entries");
  expect_read_error(entry(R"({"dtype":"F32","shape":{},"data_offsets":[0,4]})", "1234"),
                    "'shape' must be an array");
  expect_read_error(entry(R"({"dtype":"F32","shape":[1],"data_offsets":[0]})", "1234"),
                    "'data_offsets' must be an array of two integers");
  expect_read_error(entry(R"({"dtype":"F32","shape":[1],"data_offsets":[0,"4"]})", "1234"),
                    "'data_offsets' must be non-negative integers");
  expect_read_error(entry(R"({"dtype":"F32","shape":[1],"data_offsets":[4,0]})", "1234"),
                    "end before they begin");
  expect_read_error(
      entry(R"({"dtype":"F32","shape":[2,2],"data_offsets":[0,12]})", "0123456789ab"),
      "safetensors: tensor 'w' data_offsets [0, 12] do not match shape [2, 2] of F32 (16 bytes)");
  expect_read_error(
      entry(R"({"dtype":"F64","shape":[4611686018427387904,4],"data_offsets":[0,0]})"),
      "is too large");
  expect_read_error(header_only(R"({"__metadata__":{"a":1}})"),
                    "'__metadata__' value for 'a' must be a string");
  expect_read_error(header_only(R"({"__metadata__":[]})"), "'__metadata__' must be an object");
}

TEST(Safetensors, RejectsBadLayout) {
  const std::string a = R"("a":{"dtype":"U8","shape":[4],"data_offsets":[0,4]})";
  expect_read_error(header_only("{" + a + "}", "123"), "exceed the byte buffer size 3");
  expect_read_error(header_only("{" + a + "}", "12345"), "1 trailing bytes not covered");
  expect_read_error(
      header_only("{" + a + R"(,"b":{"dtype":"U8","shape":[2],"data_offsets":[2,4]}})", "1234"),
      "tensor 'b' data_offsets [2, 4] overlap tensor 'a'");
  expect_read_error(
      header_only("{" + a + R"(,"b":{"dtype":"U8","shape":[2],"data_offsets":[6,8]}})", "12345678"),
      "gap [4, 6) before tensor 'b'");
  expect_read_error(header_only(R"({"b":{"dtype":"U8","shape":[2],"data_offsets":[2,4]}})", "1234"),
                    "gap [0, 2)");
  expect_read_error(
      header_only(
          R"({"b":{"dtype":"U8","shape":[1],"data_offsets":[18446744073709551614,18446744073709551615]}})",
          "1"),
      "exceed the byte buffer size");
  // Out-of-order offsets are fine as long as they tile the buffer.
  const auto f = ts::read_safetensors(std::string_view(header_only(
      R"({"b":{"dtype":"U8","shape":[2],"data_offsets":[2,4]},"a":{"dtype":"U8","shape":[2],"data_offsets":[0,2]}})",
      "abcd")));
  EXPECT_EQ(f.find("a")->bytes, "ab");
  EXPECT_EQ(f.find("b")->bytes, "cd");
  EXPECT_EQ(f.tensors[0].first, "b");  // header order is kept
}

TEST(Safetensors, EveryTruncationAndByteFlipIsHandled) {
  Expected ex;
  const std::string blob = ts::write_safetensors(ex.tensors, ex.metadata);
  for (std::size_t len = 0; len < blob.size(); ++len) {
    EXPECT_THROW(ts::read_safetensors(std::string_view(blob).substr(0, len)), FormatError) << len;
  }
  for (std::size_t i = 0; i < blob.size(); ++i) {
    std::string mutated = blob;
    mutated[i] = static_cast<char>(mutated[i] ^ 0x5A);
    try {
      ts::read_safetensors(std::string_view(mutated));
    } catch (const FormatError&) {
    }
  }
}

// ---- cross-checks against the Python reference implementation ----

TEST(Safetensors, ReadsPythonWrittenFile) {
  const auto& fx = ts::testing::TorchFixtures::get();
  if (fx.failed) FAIL() << fx.reason;
  if (fx.dir.empty()) GTEST_SKIP() << fx.reason;
  Expected ex;
  const auto f = ts::read_safetensors_file(fx.dir / "reference.safetensors");
  expect_same(f.tensors, ex.tensors);
  EXPECT_EQ(f.metadata, ex.metadata);
}

TEST(Safetensors, PythonReadsOurFile) {
  const auto& fx = ts::testing::TorchFixtures::get();
  if (fx.failed) FAIL() << fx.reason;
  if (fx.dir.empty()) GTEST_SKIP() << fx.reason;
  Expected ex;
  const auto path = std::filesystem::temp_directory_path() /
                    ("tc_ser_ours_" + std::to_string(::getpid()) + ".safetensors");
  ts::write_safetensors_file(path, ex.tensors, ex.metadata);
  using ts::testing::TorchFixtures;
  const std::string cmd = TorchFixtures::quoted(fx.python) + " " +
                          TorchFixtures::quoted(fx.script) + " --verify-safetensors " +
                          TorchFixtures::quoted(path.string());
  EXPECT_EQ(std::system(cmd.c_str()), 0) << cmd;
  std::filesystem::remove(path);
}
