#pragma once
// Helpers shared by the serialization tests and fuzz targets: byte builders for ZIP archives
// and pickles (to craft valid and corrupt inputs by hand), and the torch fixture generator.
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "tensorcore/serialize/zip_reader.h"

namespace tc::serialize::testing {

inline void put_le(std::string& out, uint64_t v, int nbytes) {
  for (int i = 0; i < nbytes; ++i) out += static_cast<char>((v >> (8 * i)) & 0xFF);
}

// Builds a ZIP archive of stored entries. With zip64 = true every size/offset field is
// replaced by 0xFFFFFFFF plus a zip64 extra field, and zip64 end records are written, which
// exercises the reader's zip64 path without needing a 4 GiB file.
class ZipBuilder {
 public:
  void add(std::string name, std::string data, uint16_t method = 0) {
    entries_.push_back({std::move(name), std::move(data), method});
  }

  std::string build(bool zip64 = false) const {
    std::string out, cd;
    for (const Entry& e : entries_) {
      const uint64_t offset = out.size();
      const uint32_t crc = detail::crc32(e.data);
      put_le(out, 0x04034b50, 4);
      put_le(out, 20, 2);  // version needed
      put_le(out, 0, 2);   // flags
      put_le(out, e.method, 2);
      put_le(out, 0, 4);  // time, date
      put_le(out, crc, 4);
      put_le(out, e.data.size(), 4);
      put_le(out, e.data.size(), 4);
      put_le(out, e.name.size(), 2);
      put_le(out, 3, 2);  // a small extra field, as torch pads for alignment
      out += e.name;
      out += std::string("\xAA\xBB\xCC", 3);
      out += e.data;

      std::string extra;
      if (zip64) {
        put_le(extra, 0x0001, 2);
        put_le(extra, 24, 2);
        put_le(extra, e.data.size(), 8);
        put_le(extra, e.data.size(), 8);
        put_le(extra, offset, 8);
      }
      put_le(cd, 0x02014b50, 4);
      put_le(cd, 45, 2);
      put_le(cd, 45, 2);
      put_le(cd, 0, 2);
      put_le(cd, e.method, 2);
      put_le(cd, 0, 4);
      put_le(cd, crc, 4);
      put_le(cd, zip64 ? 0xFFFFFFFFu : e.data.size(), 4);
      put_le(cd, zip64 ? 0xFFFFFFFFu : e.data.size(), 4);
      put_le(cd, e.name.size(), 2);
      put_le(cd, extra.size(), 2);
      put_le(cd, 0, 2);  // comment
      put_le(cd, 0, 2);  // disk
      put_le(cd, 0, 2);  // internal attrs
      put_le(cd, 0, 4);  // external attrs
      put_le(cd, zip64 ? 0xFFFFFFFFu : offset, 4);
      cd += e.name;
      cd += extra;
    }
    const uint64_t cd_offset = out.size();
    out += cd;
    if (zip64) {
      const uint64_t z64_offset = out.size();
      put_le(out, 0x06064b50, 4);
      put_le(out, 44, 8);
      put_le(out, 45, 2);
      put_le(out, 45, 2);
      put_le(out, 0, 4);
      put_le(out, 0, 4);
      put_le(out, entries_.size(), 8);
      put_le(out, entries_.size(), 8);
      put_le(out, cd.size(), 8);
      put_le(out, cd_offset, 8);
      put_le(out, 0x07064b50, 4);
      put_le(out, 0, 4);
      put_le(out, z64_offset, 8);
      put_le(out, 1, 4);
    }
    put_le(out, 0x06054b50, 4);
    put_le(out, 0, 2);
    put_le(out, 0, 2);
    put_le(out, zip64 ? 0xFFFF : entries_.size(), 2);
    put_le(out, zip64 ? 0xFFFF : entries_.size(), 2);
    put_le(out, zip64 ? 0xFFFFFFFFu : cd.size(), 4);
    put_le(out, zip64 ? 0xFFFFFFFFu : cd_offset, 4);
    put_le(out, 0, 2);
    return out;
  }

 private:
  struct Entry {
    std::string name, data;
    uint16_t method;
  };
  std::vector<Entry> entries_;
};

// Emits pickle opcodes (protocol 2 unless stated).
class PickleBuilder {
 public:
  PickleBuilder& proto(int v = 2) { return raw("\x80").byte(v); }
  PickleBuilder& global(std::string_view module, std::string_view name) {
    return raw("c").raw(module).raw("\n").raw(name).raw("\n");
  }
  PickleBuilder& str(std::string_view s) {
    raw("X");
    put_le(out_, s.size(), 4);
    return raw(s);
  }
  PickleBuilder& int1(int v) { return raw("K").byte(v); }
  PickleBuilder& int4(int32_t v) {
    raw("J");
    put_le(out_, static_cast<uint32_t>(v), 4);
    return *this;
  }
  PickleBuilder& mark() { return raw("("); }
  PickleBuilder& tuple() { return raw("t"); }
  PickleBuilder& empty_tuple() { return raw(")"); }
  PickleBuilder& empty_dict() { return raw("}"); }
  PickleBuilder& empty_list() { return raw("]"); }
  PickleBuilder& setitems() { return raw("u"); }
  PickleBuilder& appends() { return raw("e"); }
  PickleBuilder& reduce() { return raw("R"); }
  PickleBuilder& none() { return raw("N"); }
  PickleBuilder& boolean(bool b) { return raw(b ? "\x88" : "\x89"); }
  PickleBuilder& put(int idx) { return raw("q").byte(idx); }
  PickleBuilder& get(int idx) { return raw("h").byte(idx); }
  PickleBuilder& stop() { return raw("."); }
  PickleBuilder& byte(int v) {
    out_ += static_cast<char>(v);
    return *this;
  }
  PickleBuilder& raw(std::string_view s) {
    out_.append(s.data(), s.size());
    return *this;
  }

  // _rebuild_tensor_v2(('storage', torch.<cls>, key, 'cpu', numel), offset, size, stride,
  //                    False, OrderedDict())
  PickleBuilder& tensor(std::string_view storage_cls, std::string_view key, int numel, int offset,
                        const std::vector<int>& size, const std::vector<int>& stride) {
    global("torch._utils", "_rebuild_tensor_v2").mark();
    mark().str("storage").global("torch", storage_cls).str(key).str("cpu").int1(numel).tuple();
    raw("Q").int1(offset);
    mark();
    for (int s : size) int1(s);
    tuple().mark();
    for (int s : stride) int1(s);
    tuple().boolean(false).global("collections", "OrderedDict").empty_tuple().reduce();
    return tuple().reduce();
  }

  const std::string& bytes() const { return out_; }

 private:
  std::string out_;
};

// A torch.save-like archive: <prefix>/data.pkl, <prefix>/data/<key>..., <prefix>/version.
inline std::string make_pt(const std::string& pickle,
                           const std::map<std::string, std::string>& storages, bool zip64 = false,
                           const std::string& prefix = "archive") {
  ZipBuilder zip;
  zip.add(prefix + "/data.pkl", pickle);
  for (const auto& [key, data] : storages) zip.add(prefix + "/data/" + key, data);
  zip.add(prefix + "/version", "3\n");
  return zip.build(zip64);
}

// Runs tests/data/make_serialize_fixtures.py (if a Python with torch is available) and
// remembers the outcome. Generating needs a torch import (seconds), and ctest runs every test
// in its own process, so results are cached in a temp directory keyed by the script's
// contents; concurrent processes race safely via rename. `dir` is empty when the fixtures are
// unavailable and `reason` says why.
struct TorchFixtures {
  std::filesystem::path dir;
  std::string python;   // interpreter that has torch
  std::string script;   // path of make_serialize_fixtures.py
  std::string reason;   // why dir is empty (skip message)
  bool failed = false;  // torch present but the script failed: a real error, not a skip

  static const TorchFixtures& get() {
    static const TorchFixtures instance = make();
    return instance;
  }

  static std::string quoted(const std::string& s) {
    std::string out = "'";
    for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return out + "'";
  }

 private:
  static std::string read_text(const std::filesystem::path& p) {
    std::ifstream in(p, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }

  static std::string find_script() {
    if (const char* env = std::getenv("TC_SERIALIZE_FIXTURE_SCRIPT")) return env;
#ifdef TC_SOURCE_DIR  // defined by the main CMake build
    return std::string(TC_SOURCE_DIR) + "/tests/data/make_serialize_fixtures.py";
#else
    // tests/cpp/serialize/<this file> -> tests/data/make_serialize_fixtures.py
    return (std::filesystem::path(__FILE__).parent_path() / "../../data/make_serialize_fixtures.py")
        .lexically_normal()
        .string();
#endif
  }

  static TorchFixtures make() {
    namespace fs = std::filesystem;
    TorchFixtures f;
    f.script = find_script();
    if (!fs::exists(f.script)) {
      f.reason = "fixture script not found at " + f.script + " (set TC_SERIALIZE_FIXTURE_SCRIPT)";
      return f;
    }
    std::vector<std::string> candidates;
    if (const char* env = std::getenv("TC_PYTHON")) candidates.emplace_back(env);
    candidates.insert(candidates.end(), {"python3", "/usr/bin/python3"});

    // FNV-1a over the script and the interpreter choice names the cache directory.
    uint64_t h = 1469598103934665603ull;
    for (char c : read_text(f.script) + candidates.front()) {
      h = (h ^ static_cast<unsigned char>(c)) * 1099511628211ull;
    }
    const fs::path cache =
        fs::temp_directory_path() /
        ("tc_serialize_fixtures-" + std::to_string(::getuid()) + "-" + std::to_string(h));
    if (fs::exists(cache / ".complete")) {
      f.python = read_text(cache / ".python");
      f.dir = cache;
      return f;
    }

    for (const std::string& py : candidates) {
      const std::string probe = quoted(py) + " -c 'import torch, numpy' >/dev/null 2>&1";
      if (std::system(probe.c_str()) == 0) {
        f.python = py;
        break;
      }
    }
    if (f.python.empty()) {
      f.reason = "no python3 with torch and numpy found (set TC_PYTHON); torch fixtures skipped";
      return f;
    }
    const fs::path tmp = cache.string() + ".tmp-" + std::to_string(::getpid());
    fs::create_directories(tmp);
    const std::string cmd = quoted(f.python) + " " + quoted(f.script) + " " + quoted(tmp.string()) +
                            " >" + quoted((tmp / "log.txt").string()) + " 2>&1";
    if (std::system(cmd.c_str()) != 0) {
      f.failed = true;
      f.reason = "fixture script failed; see " + (tmp / "log.txt").string();
      return f;
    }
    std::ofstream(tmp / ".python") << f.python;
    std::ofstream(tmp / ".complete") << "ok";
    std::error_code ec;
    fs::rename(tmp, cache, ec);
    if (ec) fs::remove_all(tmp, ec);  // another process finished first; use its copy
    f.dir = cache;
    return f;
  }
};

}  // namespace tc::serialize::testing
