#include "tensorcore/jit/module.h"

#include <dlfcn.h>
#include <zip.h>

#include <nlohmann/json.hpp>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <unordered_map>

#include "tensorcore/core/error.h"
#include "tensorcore/jit/op_registry.h"
#include "tensorcore/ops/copy.h"
#include "tensorcore/serialize/common.h"
#include "tensorcore/serialize/tensors/tensor_io.h"
#include "tensorcore/tensor.h"

namespace tc::jit {

using json = nlohmann::json;

namespace {

constexpr const char* kVersionEntry = "tensorcore_jit/version";
constexpr const char* kGraphEntry = "tensorcore_jit/graph.json";
constexpr const char* kConstantsEntry = "tensorcore_jit/constants.safetensors";
constexpr const char* kMetaEntry = "tensorcore_jit/meta.json";

// A zip archive opened for reading from memory (libzip verifies each entry's CRC on read).
class ZipIn {
 public:
  ZipIn(const std::string& bytes, const std::string& what) : what_(what) {
    zip_error_t err;
    zip_error_init(&err);
    zip_source_t* src = zip_source_buffer_create(bytes.data(), bytes.size(), 0, &err);
    TC_CHECK(src, what_, ": cannot read (", zip_error_strerror(&err), ")");
    archive_ = zip_open_from_source(src, ZIP_RDONLY | ZIP_CHECKCONS, &err);
    if (!archive_) {
      zip_source_free(src);
      std::string msg = zip_error_strerror(&err);
      zip_error_fini(&err);
      throw ValueError(what_ + ": not a tensorcore jit file, or truncated or damaged (" + msg +
                       ")");
    }
    zip_error_fini(&err);
  }
  // Reads entries straight from the file (no copy of the whole archive in memory).
  struct FromPath {};
  ZipIn(FromPath, const std::string& path, const std::string& what) : what_(what) {
    int code = 0;
    archive_ = zip_open(path.c_str(), ZIP_RDONLY | ZIP_CHECKCONS, &code);
    if (!archive_) {
      zip_error_t err;
      zip_error_init_with_code(&err, code);
      std::string msg = zip_error_strerror(&err);
      zip_error_fini(&err);
      if (code == ZIP_ER_NOENT || code == ZIP_ER_OPEN || code == ZIP_ER_READ)
        throw ValueError(what_ + ": cannot open " + path + " (" + msg + ")");
      throw ValueError(what_ + ": not a tensorcore jit file, or truncated or damaged (" + msg +
                       ")");
    }
  }
  ~ZipIn() {
    if (archive_) zip_discard(archive_);
  }
  bool has(const char* name) const { return zip_name_locate(archive_, name, 0) >= 0; }
  std::string read(const char* name) const {
    zip_int64_t index = zip_name_locate(archive_, name, 0);
    TC_CHECK(index >= 0, what_, ": the file has no entry '", name,
             "' (not a tensorcore jit file, or damaged)");
    zip_stat_t st;
    TC_CHECK(zip_stat_index(archive_, index, 0, &st) == 0 && (st.valid & ZIP_STAT_SIZE), what_,
             ": cannot stat '", name, "'");
    TC_CHECK(st.size < (uint64_t(1) << 40), what_, ": entry '", name, "' is implausibly large");
    zip_file_t* f = zip_fopen_index(archive_, index, 0);
    TC_CHECK(f, what_, ": cannot open '", name, "' (", zip_strerror(archive_), ")");
    std::string out(size_t(st.size), '\0');
    zip_int64_t got = zip_fread(f, out.data(), st.size);
    // Reading to the end makes libzip compare the CRC; a mismatch fails the read or the close.
    char probe;
    zip_int64_t extra = got == zip_int64_t(st.size) ? zip_fread(f, &probe, 1) : 0;
    std::string err = got < 0 || extra < 0 ? zip_file_strerror(f) : "";
    const int closed = zip_fclose(f);
    TC_CHECK(
        got == zip_int64_t(st.size) && extra == 0 && closed == 0, what_, ": entry '", name,
        "' is damaged or was modified (",
        err.empty() ? (closed ? zip_error_strerror(zip_get_error(archive_)) : "short read") : err,
        ")");
    return out;
  }

 private:
  std::string what_;
  zip_t* archive_ = nullptr;
};

std::string zip_bytes(const std::vector<std::pair<std::string, std::string>>& entries) {
  zip_error_t err;
  zip_error_init(&err);
  zip_source_t* buf = zip_source_buffer_create(nullptr, 0, 0, &err);
  TC_CHECK(buf, "jit save: ", zip_error_strerror(&err));
  zip_source_keep(buf);
  zip_t* z = zip_open_from_source(buf, ZIP_TRUNCATE, &err);
  TC_CHECK(z, "jit save: ", zip_error_strerror(&err));
  for (const auto& [name, data] : entries) {
    zip_source_t* s = zip_source_buffer(z, data.data(), data.size(), 0);
    zip_int64_t idx = s ? zip_file_add(z, name.c_str(), s, ZIP_FL_ENC_UTF_8) : -1;
    if (idx < 0) {
      if (s) zip_source_free(s);
      std::string msg = zip_strerror(z);
      zip_discard(z);
      zip_source_free(buf);
      throw Error("jit save: cannot add " + name + " (" + msg + ")");
    }
    zip_set_file_compression(z, idx, ZIP_CM_STORE, 0);  // weights do not compress; keep load fast
  }
  TC_CHECK(zip_close(z) == 0, "jit save: ", zip_strerror(z));
  std::string out;
  zip_stat_t st;
  TC_CHECK(zip_source_stat(buf, &st) == 0 && zip_source_open(buf) == 0,
           "jit save: cannot read back");
  out.resize(size_t(st.size));
  zip_int64_t got = zip_source_read(buf, out.data(), st.size);
  zip_source_close(buf);
  zip_source_free(buf);
  TC_CHECK(got == zip_int64_t(st.size), "jit save: short read of the archive");
  return out;
}

bool is_random_or_inplace(const std::string& op) {
  const std::string name = op.substr(op.rfind('.') + 1);
  if (!name.empty() && name.back() == '_' && name.front() != '_') return true;
  for (const char* word : {"rand", "dropout", "bernoulli", "normal", "multinomial", "uniform",
                           "poisson", "exponential", "random", "shuffle"})
    if (name.find(word) != std::string::npos) return true;
  return false;
}

void count_uses(const Arg& a, std::vector<int>& uses) {
  if (a.kind == Arg::Kind::Value) ++uses[a.index];
  for (const Arg& x : a.items) count_uses(x, uses);
}

void substitute(Arg& a, const std::unordered_map<int64_t, Arg>& repl) {
  if (a.kind == Arg::Kind::Value) {
    auto it = repl.find(a.index);
    if (it != repl.end()) a = it->second;
    return;
  }
  for (Arg& x : a.items) substitute(x, repl);
}

// The folded form of a node's result, following its output pattern.
void fold_result(const Arg& pattern, const IValue& v, std::vector<Tensor>& constants,
                 std::vector<std::string>& names, std::unordered_map<int64_t, Arg>& repl) {
  if (pattern.kind == Arg::Kind::Value) {
    if (v.is_tensor()) {
      repl[pattern.index] = Arg::constant(int64_t(constants.size()));
      constants.push_back(v.to_tensor());
      names.push_back("folded." + std::to_string(names.size()));
    } else {
      repl[pattern.index] = Arg::lit(v);
    }
  } else if (pattern.kind == Arg::Kind::List || pattern.kind == Arg::Kind::Tuple) {
    for (size_t i = 0; i < pattern.items.size(); ++i)
      fold_result(pattern.items[i], v.items()[i], constants, names, repl);
  }
}

bool is_const(const Arg& a) { return a.kind == Arg::Kind::Constant; }
bool is_none(const Arg& a) { return a.kind == Arg::Kind::Literal && a.literal.is_none(); }

// conv(x, W, b) followed by inference batch_norm of its only use: scale W and b instead.
bool fold_conv_bn(Node& conv, const Node& bn, std::vector<Tensor>& constants,
                  std::vector<std::string>& names) {
  if (bn.args.size() < 8 || !is_const(bn.args[1]) || !is_const(bn.args[2])) return false;
  if (!(is_const(bn.args[3]) || is_none(bn.args[3])) ||
      !(is_const(bn.args[4]) || is_none(bn.args[4])))
    return false;
  if (bn.args[5].kind != Arg::Kind::Literal || bn.args[5].literal.to_bool()) return false;
  if (conv.args.size() < 3 || !is_const(conv.args[1]) ||
      !(is_const(conv.args[2]) || is_none(conv.args[2])))
    return false;
  const Tensor& w = constants[conv.args[1].index];
  const Tensor& mean = constants[bn.args[1].index];
  const Tensor& var = constants[bn.args[2].index];
  const double eps = bn.args[7].literal.to_double();
  Tensor scale = rsqrt(add(var, Scalar(eps)));
  if (is_const(bn.args[3])) scale = mul(scale, constants[bn.args[3].index]);
  Shape shape(size_t(w.dim()), 1);
  shape[0] = -1;
  Tensor new_w = mul(w, reshape(scale, shape));
  Tensor b = is_const(conv.args[2]) ? constants[conv.args[2].index] : zeros_like(mean);
  Tensor new_b = mul(sub(b, mean), scale);
  if (is_const(bn.args[4])) new_b = add(new_b, constants[bn.args[4].index]);
  conv.args[1] = Arg::constant(int64_t(constants.size()));
  constants.push_back(contiguous(new_w));
  names.push_back("folded_conv.weight." + std::to_string(names.size()));
  conv.args[2] = Arg::constant(int64_t(constants.size()));
  constants.push_back(contiguous(new_b));
  names.push_back("folded_conv.bias." + std::to_string(names.size()));
  conv.out = bn.out;
  return true;
}

bool is_value(const Arg& a) { return a.kind == Arg::Kind::Value; }

// conv -> add -> relu chains (ResNet's blocks) become one `_C._nn._conv_fused` node, which runs
// the add and the ReLU inside the convolution. Each fused intermediate must have no other use.
// `uses` counts the uses of each value.
std::vector<Node> fuse_conv_add_relu(std::vector<Node> nodes, const std::vector<int>& uses) {
  auto is_add = [](const Node& n, bool& inplace) {
    inplace = n.op == "Tensor.__iadd__" || n.op == "Tensor.add_";
    const bool plain = n.op == "Tensor.__add__" || n.op == "Tensor.__radd__" ||
                       n.op == "Tensor.add" || n.op == "_C.add";
    return (inplace || plain) && n.args.size() == 2 && is_value(n.args[0]) && is_value(n.args[1]) &&
           n.args[0].index != n.args[1].index && is_value(n.out);
  };
  // {is a relu, in place}
  auto relu_of = [](const Node& n, int64_t v) -> std::pair<bool, bool> {
    if (n.args.empty() || !is_value(n.args[0]) || n.args[0].index != v || !is_value(n.out))
      return {false, false};
    if (n.op == "Tensor.relu_") return {n.args.size() == 1, true};
    if (n.op == "Tensor.relu" || n.op == "_C.relu") return {n.args.size() == 1, false};
    if (n.op == "_C._nn.relu" && n.args.size() == 2 && n.args[1].kind == Arg::Kind::Literal &&
        n.args[1].literal.is_bool())
      return {true, n.args[1].literal.to_bool()};
    return {false, false};
  };
  std::vector<Node> out;
  for (size_t i = 0; i < nodes.size(); ++i) {
    Node& n = nodes[i];
    const bool conv = n.op == "_C._nn.conv1d" || n.op == "_C._nn.conv2d" || n.op == "_C._nn.conv3d";
    // Explicit integer padding only ('same'/'valid' strings keep their own node).
    if (!conv || n.args.size() != 7 || !is_value(n.out) || uses[n.out.index] != 1 ||
        n.args[4].kind == Arg::Kind::Literal) {
      out.push_back(std::move(n));
      continue;
    }
    size_t j = i + 1;
    Arg residual = Arg::lit(IValue());
    int64_t mode = 0;
    Arg result = n.out;
    bool inplace = false;
    if (j < nodes.size() && is_add(nodes[j], inplace)) {
      const Node& add = nodes[j];
      const int which = add.args[0].index == n.out.index   ? 0
                        : add.args[1].index == n.out.index ? 1
                                                           : -1;
      if (which >= 0) {
        residual = add.args[1 - which];
        mode = !inplace ? 0 : which == 0 ? 1 : 2;
        result = add.out;
        ++j;
      }
    }
    bool relu = false;
    if (j < nodes.size() && (mode == 0 || j == i + 2) && uses[result.index] == 1) {
      auto [is_relu, relu_inplace] = relu_of(nodes[j], result.index);
      // A copying ReLU after `residual += conv` must leave the residual un-rectified.
      if (is_relu && (relu_inplace || mode != 2)) {
        relu = true;
        result = nodes[j].out;
        ++j;
      }
    }
    // A conv with nothing to fuse becomes one too, for the choice of layout below.
    Node f;
    f.op = "_C._nn._conv_fused";
    f.args = n.args;
    f.args.push_back(residual);
    f.args.push_back(Arg::lit(IValue(mode)));
    f.args.push_back(Arg::lit(IValue(relu)));
    f.args.push_back(Arg::lit(IValue(n.op == "_C._nn.conv2d")));  // channels_last, set below
    f.out = result;
    out.push_back(std::move(f));
    i = j - 1;
  }
  return out;
}

// A 2-d fused conv writes channels-last (NHWC) memory when every reader of its output is another
// fused conv (as input or residual), an average pool (which reads any strides and returns NCHW)
// or a max pool whose own output qualifies (it returns NHWC for NHWC input, as torch's does), and
// the output is not a graph output: then a chain of convolutions runs with no reorder between
// them. Readers come after writers, so one backward sweep settles every value.
void choose_conv_layouts(std::vector<Node>& nodes, const Arg& output, int64_t num_values) {
  std::vector<char> nhwc_ok(size_t(num_values), 1);
  std::vector<int> out_uses(size_t(num_values), 0);
  count_uses(output, out_uses);
  for (size_t v = 0; v < out_uses.size(); ++v)
    if (out_uses[v]) nhwc_ok[v] = 0;
  auto disallow_all = [&](const Arg& a, auto&& self) -> void {
    if (a.kind == Arg::Kind::Value) nhwc_ok[size_t(a.index)] = 0;
    for (const Arg& x : a.items) self(x, self);
  };
  for (auto it = nodes.rbegin(); it != nodes.rend(); ++it) {
    const Node& n = *it;
    const bool fused = n.op == "_C._nn._conv_fused";
    const bool avg = n.op == "_C._nn.avg_pool2d" || n.op == "_C._nn.adaptive_avg_pool2d";
    const bool max = n.op == "_C._nn.max_pool2d" && is_value(n.out) && nhwc_ok[size_t(n.out.index)];
    // `residual += conv` returns the residual's memory: its layout is the result's.
    const bool into_residual = fused && n.args.size() > 8 && n.args[8].kind == Arg::Kind::Literal &&
                               n.args[8].literal.is_int() && n.args[8].literal.to_int() == 2;
    const bool result_ok = is_value(n.out) && nhwc_ok[size_t(n.out.index)];
    for (size_t k = 0; k < n.args.size(); ++k) {
      const bool reads_any_layout =
          (fused && (k == 0 || (k == 7 && (!into_residual || result_ok)))) ||
          ((avg || max) && k == 0);
      if (!reads_any_layout) disallow_all(n.args[k], disallow_all);
    }
  }
  for (Node& n : nodes) {
    if (n.op != "_C._nn._conv_fused" || n.args.size() < 11 || !is_value(n.out)) continue;
    Arg& flag = n.args[10];
    flag = Arg::lit(IValue(flag.literal.to_bool() && nhwc_ok[size_t(n.out.index)]));
  }
}

void collect_constants(const Arg& a, std::vector<char>& used) {
  if (a.kind == Arg::Kind::Constant) used[a.index] = 1;
  for (const Arg& x : a.items) collect_constants(x, used);
}

void renumber_constants(Arg& a, const std::vector<int64_t>& new_index) {
  if (a.kind == Arg::Kind::Constant) a.index = new_index[a.index];
  for (Arg& x : a.items) renumber_constants(x, new_index);
}

}  // namespace

Module::Module(Graph graph, std::vector<Tensor> constants,
               std::map<std::string, std::string> metadata) {
  TC_CHECK(graph.constant_names.size() == constants.size(), "jit: the graph names ",
           graph.constant_names.size(), " constants but ", constants.size(), " were given");
  graph.validate();
  state_ =
      std::make_shared<State>(State{std::move(graph), std::move(constants), std::move(metadata)});
}

const Module::State& Module::state() const {
  TC_CHECK(state_, "jit: the module is empty (default-constructed)");
  return *state_;
}
const Graph& Module::graph() const { return state().graph; }
const std::vector<Tensor>& Module::constants() const { return state().constants; }
const std::map<std::string, std::string>& Module::metadata() const { return state().metadata; }
std::vector<std::pair<std::string, Tensor>> Module::named_constants() const {
  std::vector<std::pair<std::string, Tensor>> out;
  for (size_t i = 0; i < constants().size(); ++i)
    out.emplace_back(graph().constant_names[i], constants()[i]);
  return out;
}

IValue Module::forward(const IValueList& inputs) const {
  return run_graph(state().graph, state().constants, inputs);
}

namespace {
Module read_module(const ZipIn& zip, std::optional<Device> map_location);
}  // namespace

Module Module::load(const std::string& path, std::optional<Device> map_location) {
  load_domain_op_libraries();
  try {
    return read_module(ZipIn(ZipIn::FromPath{}, path, "jit.load"), map_location);
  } catch (const NotImplementedError& e) {
    throw NotImplementedError(path + ": " + e.what());
  } catch (const ValueError& e) {
    throw ValueError(path + ": " + e.what());
  }
}

Module Module::load_from_bytes(const std::string& bytes, std::optional<Device> map_location) {
  load_domain_op_libraries();
  return read_module(ZipIn(bytes, "jit.load"), map_location);
}

namespace {
Module read_module(const ZipIn& zip, std::optional<Device> map_location) {
  const std::string version_text = zip.read(kVersionEntry);
  int version = 0;
  try {
    version = std::stoi(version_text);
  } catch (const std::exception&) {
    throw ValueError("jit.load: the version entry is not a number: '" + version_text + "'");
  }
  if (version > Graph::kFormatVersion)
    throw NotImplementedError(detail::concat("jit.load: the file has format version ", version,
                                             ", newer than this runtime's ", Graph::kFormatVersion,
                                             "; load it with a newer tensorcore"));
  TC_CHECK(version >= 1, "jit.load: bad format version ", version);
  Graph graph = Graph::parse_json(zip.read(kGraphEntry));
  serialize::NamedTensors named;
  try {
    auto buffer = std::make_shared<const std::string>(zip.read(kConstantsEntry));
    named = serialize::tensors_from_safetensors(serialize::read_safetensors(buffer), true);
  } catch (const serialize::FormatError& e) {
    throw ValueError(std::string("jit.load: the constants are damaged (") + e.what() + ")");
  }
  std::unordered_map<std::string, Tensor> by_name(named.begin(), named.end());
  std::vector<Tensor> constants;
  for (const std::string& name : graph.constant_names) {
    auto it = by_name.find(name);
    TC_CHECK(it != by_name.end(), "jit.load: the constant '", name, "' is missing from the file");
    constants.push_back(map_location ? to_device(it->second, *map_location) : it->second);
  }
  std::map<std::string, std::string> meta;
  if (zip.has(kMetaEntry)) {
    try {
      meta = json::parse(zip.read(kMetaEntry)).get<std::map<std::string, std::string>>();
    } catch (const json::exception& e) {
      throw ValueError(std::string("jit.load: meta.json is malformed (") + e.what() + ")");
    }
  }
  return Module(std::move(graph), std::move(constants), std::move(meta));
}
}  // namespace

std::string Module::save_to_bytes() const {
  serialize::NamedTensors named;
  for (size_t i = 0; i < constants().size(); ++i)
    named.emplace_back(graph().constant_names[i], contiguous(to_device(constants()[i], Device())));
  std::map<std::string, std::string> meta = metadata();
  meta["producer"] = "tensorcore";
  return zip_bytes({{kVersionEntry, std::to_string(Graph::kFormatVersion)},
                    {kGraphEntry, graph().json_text()},
                    {kConstantsEntry, serialize::safetensors_bytes(named)},
                    {kMetaEntry, json(meta).dump()}});
}

void Module::save(const std::string& path) const {
  const std::string bytes = save_to_bytes();
  try {
    serialize::detail::write_file_atomically(
        path, [&](std::ostream& os) { os.write(bytes.data(), std::streamsize(bytes.size())); });
  } catch (const serialize::IoError& e) {
    throw ValueError(std::string("jit.save: ") + e.what());
  }
}

Module Module::to(Device device) const {
  std::vector<Tensor> moved;
  for (const Tensor& t : constants()) moved.push_back(to_device(t, device));
  return Module(graph(), std::move(moved), metadata());
}

Module Module::freeze() const {
  Graph g = graph();
  std::vector<Tensor> constants = this->constants();
  std::vector<std::string>& names = g.constant_names;
  std::unordered_map<int64_t, Arg> repl;
  std::vector<Node> kept;
  for (Node n : g.nodes) {
    for (Arg& a : n.args) substitute(a, repl);
    bool uses_values = false;
    for (const Arg& a : n.args) uses_values = uses_values || a.uses_values();
    if (!uses_values && !is_random_or_inplace(n.op) && n.out.kind != Arg::Kind::Literal) {
      const OpFn* fn = find_op(n.op);
      IValueList resolved;
      for (const Arg& a : n.args) resolved.push_back(constant_arg_value(a, constants));
      fold_result(n.out, (*fn)(OpArgs(n.op, resolved)), constants, names, repl);
      continue;
    }
    kept.push_back(std::move(n));
  }
  substitute(g.output, repl);
  // conv + batch_norm pairs.
  std::vector<int> uses(size_t(g.num_values), 0);
  for (const Node& n : kept)
    for (const Arg& a : n.args) count_uses(a, uses);
  count_uses(g.output, uses);
  std::vector<Node> fused;
  for (size_t i = 0; i < kept.size(); ++i) {
    Node& n = kept[i];
    const bool conv = n.op == "_C._nn.conv1d" || n.op == "_C._nn.conv2d" || n.op == "_C._nn.conv3d";
    if (conv && i + 1 < kept.size() && kept[i + 1].op == "_C._nn.batch_norm" &&
        n.out.kind == Arg::Kind::Value && uses[n.out.index] == 1 && kept[i + 1].args.size() > 0 &&
        kept[i + 1].args[0].kind == Arg::Kind::Value && kept[i + 1].args[0].index == n.out.index &&
        fold_conv_bn(n, kept[i + 1], constants, names)) {
      fused.push_back(std::move(n));
      ++i;
      continue;
    }
    fused.push_back(std::move(n));
  }
  {
    std::fill(uses.begin(), uses.end(), 0);
    for (const Node& n : fused)
      for (const Arg& a : n.args) count_uses(a, uses);
    count_uses(g.output, uses);
    fused = fuse_conv_add_relu(std::move(fused), uses);
    choose_conv_layouts(fused, g.output, g.num_values);
  }
  // Drop nodes whose results nobody uses (not in-place ones: their effect is the mutation).
  std::vector<Node> live;
  std::fill(uses.begin(), uses.end(), 0);
  count_uses(g.output, uses);
  for (auto it = fused.rbegin(); it != fused.rend(); ++it) {
    std::vector<int> out_uses(size_t(g.num_values), 0);
    count_uses(it->out, out_uses);
    bool needed = is_random_or_inplace(it->op);
    for (size_t v = 0; v < out_uses.size() && !needed; ++v) needed = out_uses[v] && uses[v];
    if (!needed) continue;
    for (const Arg& a : it->args) count_uses(a, uses);
    live.push_back(std::move(*it));
  }
  g.nodes.assign(std::make_move_iterator(live.rbegin()), std::make_move_iterator(live.rend()));
  // Keep only the constants still referenced.
  std::vector<char> used(constants.size(), 0);
  for (const Node& n : g.nodes)
    for (const Arg& a : n.args) collect_constants(a, used);
  collect_constants(g.output, used);
  std::vector<int64_t> new_index(constants.size(), -1);
  std::vector<Tensor> kept_constants;
  std::vector<std::string> kept_names;
  for (size_t i = 0; i < constants.size(); ++i) {
    if (!used[i]) continue;
    new_index[i] = int64_t(kept_constants.size());
    kept_constants.push_back(constants[i]);
    kept_names.push_back(names[i]);
  }
  for (Node& n : g.nodes)
    for (Arg& a : n.args) renumber_constants(a, new_index);
  renumber_constants(g.output, new_index);
  g.constant_names = std::move(kept_names);
  std::map<std::string, std::string> meta = metadata();
  meta["frozen"] = "1";
  return Module(std::move(g), std::move(kept_constants), std::move(meta));
}

void load_domain_op_libraries() {
  static std::once_flag once;
  std::call_once(once, [] {
    Dl_info info;
    if (!dladdr(reinterpret_cast<void*>(&load_domain_op_libraries), &info) || !info.dli_fname)
      return;
    const std::filesystem::path self(info.dli_fname);
    if (self.filename().string().rfind("libtensorcore", 0) != 0) return;  // static build
    for (const char* lib : {"libtensorcore_io.so", "libtensorcore_vision.so",
                            "libtensorcore_audio.so", "libtensorcore_models.so"}) {
      const std::filesystem::path p = self.parent_path() / lib;
      if (std::filesystem::exists(p)) dlopen(p.c_str(), RTLD_NOW | RTLD_GLOBAL);
    }
  });
}

}  // namespace tc::jit
