#include "tensorcore/jit/graph.h"

#include <algorithm>
#include <cmath>
#include <sstream>

#include <nlohmann/json.hpp>

#include "tensorcore/core/error.h"
#include "tensorcore/jit/op_registry.h"

namespace tc::jit {

using json = nlohmann::json;

Arg Arg::value(int64_t id) {
  Arg a;
  a.kind = Kind::Value;
  a.index = id;
  return a;
}
Arg Arg::constant(int64_t index) {
  Arg a;
  a.kind = Kind::Constant;
  a.index = index;
  return a;
}
Arg Arg::lit(IValue v) {
  Arg a;
  a.literal = std::move(v);
  return a;
}
Arg Arg::seq(Kind kind, std::vector<Arg> items) {
  Arg a;
  a.kind = kind;
  a.items = std::move(items);
  return a;
}
bool Arg::uses_values() const {
  if (kind == Kind::Value) return true;
  for (const Arg& a : items)
    if (a.uses_values()) return true;
  return false;
}

namespace {

json double_json(double d) {
  if (std::isfinite(d)) return d;
  return json{{"f", std::isnan(d) ? "nan" : (d > 0 ? "inf" : "-inf")}};
}

json opt_int_json(const std::optional<int64_t>& v) { return v ? json(*v) : json(nullptr); }

json arg_json(const Arg& a) {
  switch (a.kind) {
    case Arg::Kind::Value:
      return json{{"v", a.index}};
    case Arg::Kind::Constant:
      return json{{"c", a.index}};
    case Arg::Kind::List:
    case Arg::Kind::Tuple: {
      json items = json::array();
      for (const Arg& x : a.items) items.push_back(arg_json(x));
      return json{{a.kind == Arg::Kind::List ? "l" : "t", items}};
    }
    case Arg::Kind::Dict: {
      json items = json::array();
      for (size_t i = 0; i < a.items.size(); ++i)
        items.push_back(json::array({a.keys[i], arg_json(a.items[i])}));
      return json{{"d", items}};
    }
    case Arg::Kind::Literal:
      break;
  }
  const IValue& v = a.literal;
  if (v.is_none()) return nullptr;
  if (v.is_bool()) return v.to_bool();
  if (v.is_int()) return v.to_int();
  if (v.is_double()) return double_json(v.to_double());
  if (v.is_string()) return json{{"s", v.to_string()}};
  if (v.is_dtype()) return json{{"dtype", dtype_name(v.to_dtype())}};
  if (v.is_device()) return json{{"device", v.to_device().str()}};
  if (v.is_ellipsis()) return json{{"ellipsis", 1}};
  if (v.is_slice()) {
    const Slice& s = v.to_slice();
    return json{{"slice",
                 json::array({opt_int_json(s.start), opt_int_json(s.stop), opt_int_json(s.step)})}};
  }
  throw TypeError(detail::concat("jit: a ", v.kind_name(), " cannot be a graph literal"));
}

std::optional<int64_t> opt_int_from(const json& j) {
  if (j.is_null()) return std::nullopt;
  return j.get<int64_t>();
}

Arg arg_from(const json& j) {
  if (j.is_null()) return Arg::lit(None{});
  if (j.is_boolean()) return Arg::lit(j.get<bool>());
  if (j.is_number_integer()) return Arg::lit(j.get<int64_t>());
  if (j.is_number_float()) return Arg::lit(j.get<double>());
  TC_CHECK(j.is_object() && j.size() == 1, "jit: malformed argument in graph: ", j.dump());
  const auto& [key, val] = *j.items().begin();
  if (key == "v") return Arg::value(val.get<int64_t>());
  if (key == "c") return Arg::constant(val.get<int64_t>());
  if (key == "l" || key == "t") {
    std::vector<Arg> items;
    for (const json& x : val) items.push_back(arg_from(x));
    return Arg::seq(key == "l" ? Arg::Kind::List : Arg::Kind::Tuple, std::move(items));
  }
  if (key == "d") {
    Arg a = Arg::seq(Arg::Kind::Dict, {});
    for (const json& kv : val) {
      a.keys.push_back(kv.at(0).get<std::string>());
      a.items.push_back(arg_from(kv.at(1)));
    }
    return a;
  }
  if (key == "f") {
    const std::string s = val.get<std::string>();
    return Arg::lit(s == "nan" ? NAN : (s == "inf" ? INFINITY : -INFINITY));
  }
  if (key == "s") return Arg::lit(val.get<std::string>());
  if (key == "dtype") return Arg::lit(dtype_from_name(val.get<std::string>()));
  if (key == "device") return Arg::lit(Device(val.get<std::string>()));
  if (key == "ellipsis") return Arg::lit(Ellipsis{});
  if (key == "slice")
    return Arg::lit(
        Slice{opt_int_from(val.at(0)), opt_int_from(val.at(1)), opt_int_from(val.at(2))});
  throw ValueError("jit: unknown argument kind '" + key + "' in graph");
}

// Catches an op's error and rethrows the same kind with the node named first.
// The context is built only when an error is thrown (not on every node of every call).
template <typename Ctx, typename F>
IValue with_context_lazy(Ctx&& make_ctx, F&& f) {
  try {
    return f();
  } catch (const DecodeError& e) {
    throw DecodeError(make_ctx() + e.what());
  } catch (const IndexError& e) {
    throw IndexError(make_ctx() + e.what());
  } catch (const TypeError& e) {
    throw TypeError(make_ctx() + e.what());
  } catch (const NotImplementedError& e) {
    throw NotImplementedError(make_ctx() + e.what());
  } catch (const ValueError& e) {
    throw ValueError(make_ctx() + e.what());
  } catch (const Error& e) {
    throw Error(make_ctx() + e.what());
  } catch (const std::bad_alloc&) {
    throw;
  } catch (const std::exception& e) {
    throw Error(make_ctx() + e.what());
  }
}

template <typename F>
IValue with_context(const std::string& ctx, F&& f) {
  return with_context_lazy([&] { return ctx; }, std::forward<F>(f));
}

struct Frame {
  const std::vector<Tensor>& constants;
  std::vector<IValue> values;
  std::vector<char> defined;
};

IValue resolve(const Arg& a, const Frame& f) {
  switch (a.kind) {
    case Arg::Kind::Value:
      return f.values[a.index];
    case Arg::Kind::Constant:
      return f.constants[a.index];
    case Arg::Kind::Literal:
      return a.literal;
    case Arg::Kind::List:
    case Arg::Kind::Tuple: {
      IValueList items;
      items.reserve(a.items.size());
      for (const Arg& x : a.items) items.push_back(resolve(x, f));
      return a.kind == Arg::Kind::List ? IValue::list(std::move(items))
                                       : IValue::tuple(std::move(items));
    }
    case Arg::Kind::Dict: {
      IValueDict items;
      for (size_t i = 0; i < a.items.size(); ++i)
        items.emplace_back(a.keys[i], resolve(a.items[i], f));
      return IValue::dict(std::move(items));
    }
  }
  return {};
}

// Binds the parts of `v` that `pattern` names to their value ids.
void bind(const Arg& pattern, const IValue& v, Frame& f) {
  switch (pattern.kind) {
    case Arg::Kind::Value:
      f.values[pattern.index] = v;
      f.defined[pattern.index] = 1;
      return;
    case Arg::Kind::List:
    case Arg::Kind::Tuple: {
      TC_CHECK_TYPE(v.is_sequence(), "expected a sequence of ", pattern.items.size(),
                    " values, got ", v.kind_name());
      const IValueList& items = v.items();
      TC_CHECK(items.size() == pattern.items.size(), "expected a sequence of ",
               pattern.items.size(), " values, got ", items.size());
      for (size_t i = 0; i < items.size(); ++i) bind(pattern.items[i], items[i], f);
      return;
    }
    case Arg::Kind::Dict: {
      const IValueDict& items = v.dict_items();
      for (size_t i = 0; i < pattern.keys.size(); ++i) {
        const IValue* found = nullptr;
        for (const auto& kv : items)
          if (kv.first == pattern.keys[i]) found = &kv.second;
        TC_CHECK(found, "expected the key '", pattern.keys[i], "'");
        bind(pattern.items[i], *found, f);
      }
      return;
    }
    default:
      return;  // ignored part
  }
}

void check_input(const InputSpec& spec, const IValue& v, size_t i) {
  if (spec.dtype.empty()) return;
  const std::string name = spec.name.empty() ? "" : " (" + spec.name + ")";
  TC_CHECK_TYPE(v.is_tensor(), "forward: input ", i, name, " must be a Tensor, got ",
                v.kind_name());
  const Tensor& t = v.to_tensor();
  TC_CHECK_TYPE(dtype_name(t.dtype()) == spec.dtype, "forward: input ", i, name, " must be a ",
                spec.dtype, " tensor (as traced), got ", dtype_name(t.dtype()));
  TC_CHECK(spec.rank < 0 || t.dim() == spec.rank, "forward: input ", i, name, " must have ",
           spec.rank, " dimensions (as traced), got ", t.dim(), " (shape ", shape_str(t.sizes()),
           ")");
}

void check_value_refs(const Arg& a, const std::vector<char>& defined, int64_t num_constants,
                      const std::string& where) {
  if (a.kind == Arg::Kind::Value)
    TC_CHECK(a.index >= 0 && size_t(a.index) < defined.size() && defined[a.index], where,
             ": uses value %", a.index, " before it is defined");
  if (a.kind == Arg::Kind::Constant)
    TC_CHECK(a.index >= 0 && a.index < num_constants, where, ": constant ", a.index,
             " does not exist");
  for (const Arg& x : a.items) check_value_refs(x, defined, num_constants, where);
}

void mark_defined(const Arg& pattern, std::vector<char>& defined, const std::string& where) {
  if (pattern.kind == Arg::Kind::Value) {
    TC_CHECK(pattern.index >= 0 && size_t(pattern.index) < defined.size(), where, ": value id %",
             pattern.index, " out of range");
    defined[pattern.index] = 1;
  }
  for (const Arg& x : pattern.items) mark_defined(x, defined, where);
}

void print_arg(std::ostream& os, const Arg& a, const std::vector<std::string>& constants) {
  switch (a.kind) {
    case Arg::Kind::Value:
      os << '%' << a.index;
      return;
    case Arg::Kind::Constant:
      os << constants[a.index];
      return;
    case Arg::Kind::List:
    case Arg::Kind::Tuple:
    case Arg::Kind::Dict: {
      const bool list = a.kind == Arg::Kind::List;
      os << (list ? '[' : a.kind == Arg::Kind::Tuple ? '(' : '{');
      for (size_t i = 0; i < a.items.size(); ++i) {
        if (i) os << ", ";
        if (a.kind == Arg::Kind::Dict) os << '"' << a.keys[i] << "\": ";
        print_arg(os, a.items[i], constants);
      }
      if (a.kind == Arg::Kind::Tuple && a.items.size() == 1) os << ',';
      os << (list ? ']' : a.kind == Arg::Kind::Tuple ? ')' : '}');
      return;
    }
    case Arg::Kind::Literal:
      os << arg_json(a).dump();
  }
}

}  // namespace

namespace {
json graph_to_json(const Graph& g) {
  json j;
  j["format"] = "tensorcore.jit.graph";
  j["version"] = Graph::kFormatVersion;
  j["num_values"] = g.num_values;
  json ins = json::array();
  for (const Arg& a : g.inputs) ins.push_back(arg_json(a));
  j["inputs"] = ins;
  json specs = json::array();
  for (const InputSpec& s : g.input_specs)
    specs.push_back(json{{"name", s.name}, {"dtype", s.dtype}, {"rank", s.rank}});
  j["input_specs"] = specs;
  json ns = json::array();
  for (const Node& n : g.nodes) {
    json args = json::array();
    for (const Arg& a : n.args) args.push_back(arg_json(a));
    ns.push_back(json{{"op", n.op}, {"args", args}, {"out", arg_json(n.out)}});
  }
  j["nodes"] = ns;
  j["output"] = arg_json(g.output);
  j["constants"] = g.constant_names;
  return j;
}

Graph graph_from_json(const json& j);
}  // namespace

std::string Graph::json_text(int indent) const { return graph_to_json(*this).dump(indent); }

Graph Graph::parse_json(const std::string& text) {
  json j;
  try {
    j = json::parse(text);
  } catch (const json::exception& e) {
    throw ValueError(std::string("jit: graph.json is not valid JSON (") + e.what() + ")");
  }
  return graph_from_json(j);
}

namespace {
Graph graph_from_json(const json& j) {
  try {
    TC_CHECK(j.is_object() && j.value("format", "") == "tensorcore.jit.graph",
             "jit: not a tensorcore graph");
    const int version = j.at("version").get<int>();
    TC_CHECK(version <= Graph::kFormatVersion, "jit: the graph has format version ", version,
             ", newer than this runtime's version ", Graph::kFormatVersion,
             "; load it with a newer tensorcore");
    Graph g;
    g.num_values = j.at("num_values").get<int64_t>();
    TC_CHECK(g.num_values >= 0 && g.num_values < (int64_t(1) << 31), "jit: bad value count");
    for (const json& a : j.at("inputs")) g.inputs.push_back(arg_from(a));
    for (const json& s : j.at("input_specs"))
      g.input_specs.push_back(InputSpec{s.at("name").get<std::string>(),
                                        s.at("dtype").get<std::string>(),
                                        s.at("rank").get<int64_t>()});
    for (const json& n : j.at("nodes")) {
      Node node;
      node.op = n.at("op").get<std::string>();
      for (const json& a : n.at("args")) node.args.push_back(arg_from(a));
      node.out = arg_from(n.at("out"));
      g.nodes.push_back(std::move(node));
    }
    g.output = arg_from(j.at("output"));
    g.constant_names = j.at("constants").get<std::vector<std::string>>();
    return g;
  } catch (const json::exception& e) {
    throw ValueError(std::string("jit: malformed graph (") + e.what() + ")");
  }
}
}  // namespace

void Graph::validate() const {
  TC_CHECK(input_specs.empty() || input_specs.size() == inputs.size(), "jit: graph has ",
           inputs.size(), " inputs but ", input_specs.size(), " input specs");
  std::vector<char> defined(size_t(num_values), 0);
  const int64_t nconst = int64_t(constant_names.size());
  for (const Arg& a : inputs) mark_defined(a, defined, "graph input");
  for (size_t i = 0; i < nodes.size(); ++i) {
    const Node& n = nodes[i];
    const std::string where = detail::concat("jit: node ", i, " (", n.op, ")");
    if (!find_op(n.op))
      throw NotImplementedError(where + ": this runtime has no op '" + n.op +
                                "' (link the library that provides it, or use a newer tensorcore)");
    for (const Arg& a : n.args) check_value_refs(a, defined, nconst, where);
    mark_defined(n.out, defined, where);
  }
  check_value_refs(output, defined, nconst, "jit: graph output");
}

std::string Graph::str() const {
  std::ostringstream os;
  os << "graph(";
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (i) os << ", ";
    print_arg(os, inputs[i], constant_names);
    if (i < input_specs.size() && !input_specs[i].dtype.empty())
      os << ": " << input_specs[i].dtype << "[rank " << input_specs[i].rank << "]";
  }
  os << "):\n";
  for (const Node& n : nodes) {
    os << "  ";
    if (!(n.out.kind == Arg::Kind::Literal)) {
      print_arg(os, n.out, constant_names);
      os << " = ";
    }
    os << n.op << '(';
    for (size_t i = 0; i < n.args.size(); ++i) {
      if (i) os << ", ";
      print_arg(os, n.args[i], constant_names);
    }
    os << ")\n";
  }
  os << "  return ";
  print_arg(os, output, constant_names);
  os << '\n';
  return os.str();
}

IValue constant_arg_value(const Arg& a, const std::vector<Tensor>& constants) {
  TC_CHECK(!a.uses_values(), "jit: the argument references graph values");
  return resolve(a, Frame{constants, {}, {}});
}

void note_uses(const Arg& a, int64_t node, std::vector<int64_t>& last) {
  if (a.kind == Arg::Kind::Value) last[size_t(a.index)] = std::max(last[size_t(a.index)], node);
  for (const Arg& x : a.items) note_uses(x, node, last);
}

// For each node, the values to drop after it: those it uses (or defines) for the last time.
// Values of the output are kept.
std::vector<std::vector<int64_t>> release_schedule(const Graph& g) {
  const int64_t n = int64_t(g.nodes.size());
  std::vector<int64_t> last(size_t(g.num_values), -1);
  for (int64_t i = 0; i < n; ++i) {
    note_uses(g.nodes[size_t(i)].out, i, last);  // defined and never used: dropped at once
    for (const Arg& a : g.nodes[size_t(i)].args) note_uses(a, i, last);
  }
  note_uses(g.output, n, last);
  std::vector<std::vector<int64_t>> release(static_cast<size_t>(n));
  for (size_t v = 0; v < last.size(); ++v)
    if (last[v] >= 0 && last[v] < n) release[size_t(last[v])].push_back(int64_t(v));
  return release;
}

IValue run_graph(const Graph& g, const std::vector<Tensor>& constants, const IValueList& inputs) {
  TC_CHECK_TYPE(inputs.size() == g.inputs.size(), "forward: expected ", g.inputs.size(),
                " inputs (as traced), got ", inputs.size());
  Frame f{constants, std::vector<IValue>(size_t(g.num_values)),
          std::vector<char>(size_t(g.num_values), 0)};
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (i < g.input_specs.size()) check_input(g.input_specs[i], inputs[i], i);
    with_context(detail::concat("forward: input ", i, ": "), [&] {
      bind(g.inputs[i], inputs[i], f);
      return IValue();
    });
  }
  // Each value is dropped after its last use, so the allocator hands its (cache-warm) block to
  // the next node instead of every intermediate living until the end of the call.
  const std::vector<std::vector<int64_t>> release = release_schedule(g);
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    const Node& n = g.nodes[i];
    const OpFn* fn = find_op(n.op);
    if (!fn)
      throw NotImplementedError(
          detail::concat("jit: node ", i, " (", n.op, "): this runtime has no such op"));
    with_context_lazy([&] { return detail::concat("node ", i, " (", n.op, "): "); },
                      [&] {
                        IValueList args;
                        args.reserve(n.args.size());
                        for (const Arg& a : n.args) args.push_back(resolve(a, f));
                        IValue result = (*fn)(OpArgs(n.op, args));
                        bind(n.out, result, f);
                        return IValue();
                      });
    for (int64_t v : release[i]) f.values[size_t(v)] = IValue();
  }
  return resolve(g.output, f);
}

}  // namespace tc::jit
