#pragma once
// A traced program: a straight-line list of op calls over numbered values, as recorded by
// tc.jit.trace. Arguments are values made by earlier nodes, tensor constants (the weights, kept
// apart so they serialize as safetensors) or literals, nested in lists/tuples/dicts.
#include <string>
#include <vector>

#include "tensorcore/jit/ivalue.h"

namespace tc::jit {

struct Arg {
  enum class Kind { Value, Constant, Literal, List, Tuple, Dict };
  Kind kind = Kind::Literal;
  int64_t index = -1;             // Value: value id; Constant: constant index
  IValue literal;                 // Literal: a non-container value (None, number, str, ...)
  std::vector<Arg> items;         // List, Tuple, Dict (values)
  std::vector<std::string> keys;  // Dict

  static Arg value(int64_t id);
  static Arg constant(int64_t index);
  static Arg lit(IValue v);
  static Arg seq(Kind kind, std::vector<Arg> items);
  bool uses_values() const;  // does it reference any Value?
};

struct Node {
  std::string op;         // the registry name ("_C._nn.conv2d")
  std::vector<Arg> args;  // positional, as the binding received them
  Arg out;                // pattern binding the result: Values, sequences; Literal None = ignored
};

// What a graph input must be: the dtype and rank it was traced with (sizes may vary).
struct InputSpec {
  std::string name;
  std::string dtype;  // empty: not a tensor (no check)
  int64_t rank = -1;
};

struct Graph {
  static constexpr int kFormatVersion = 1;

  int64_t num_values = 0;
  std::vector<Arg> inputs;  // one pattern per positional input
  std::vector<InputSpec> input_specs;
  std::vector<Node> nodes;
  Arg output;
  std::vector<std::string> constant_names;

  // The graph.json text of a saved file (nlohmann-json inside; not part of this header).
  std::string json_text(int indent = -1) const;
  // Throws tc::ValueError naming the problem for text that is not a valid graph.
  static Graph parse_json(const std::string& text);
  // Checks every op is registered and every value is defined before use; names the first bad
  // node (tc::NotImplementedError for an unknown op, tc::ValueError otherwise).
  void validate() const;
  // Readable listing: "%3 = _C._nn.conv2d(%0, weight, None, (2, 2), ...)".
  std::string str() const;
};

// The value of an argument that references no graph value (constants and literals only).
IValue constant_arg_value(const Arg& a, const std::vector<Tensor>& constants);

// Runs the graph. Thread-safe: each call keeps its own values; constants are shared.
IValue run_graph(const Graph& g, const std::vector<Tensor>& constants, const IValueList& inputs);

}  // namespace tc::jit
