#pragma once
// A traced program with its weights: what tc.jit.trace returns and tc.jit.save writes. The file
// is a zip (stored, CRC-checked) holding
//   tensorcore_jit/version                  the format version, read before anything else
//   tensorcore_jit/graph.json               the graph (graph.h)
//   tensorcore_jit/constants.safetensors    the tensor constants (weights), by name
//   tensorcore_jit/meta.json                producer and user metadata
// Loading never executes code from the file: a graph names registered ops only.
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "tensorcore/jit/graph.h"

namespace tc::jit {

class Module {
 public:
  Module() = default;
  Module(Graph graph, std::vector<Tensor> constants,
         std::map<std::string, std::string> metadata = {});

  // Throws tc::ValueError naming the problem for a truncated, tampered or foreign file, and
  // tc::NotImplementedError for a newer format version or an op this runtime lacks.
  static Module load(const std::string& path, std::optional<Device> map_location = {});
  static Module load_from_bytes(const std::string& bytes, std::optional<Device> map_location = {});
  void save(const std::string& path) const;  // atomic: a temporary file renamed into place
  std::string save_to_bytes() const;

  // Runs the graph; thread-safe (concurrent calls share only the read-only constants).
  IValue forward(const IValueList& inputs) const;
  IValue operator()(const IValueList& inputs) const { return forward(inputs); }

  // Constant folding (nodes whose inputs are all constants run once) and conv + batch_norm
  // folding for inference; the result is a new module.
  Module freeze() const;
  Module to(Device device) const;

  const Graph& graph() const;
  const std::vector<Tensor>& constants() const;
  std::vector<std::pair<std::string, Tensor>> named_constants() const;
  const std::map<std::string, std::string>& metadata() const;
  bool defined() const { return state_ != nullptr; }

 private:
  struct State {
    Graph graph;
    std::vector<Tensor> constants;
    std::map<std::string, std::string> metadata;
  };
  std::shared_ptr<const State> state_;
  const State& state() const;
};

// Loads the domain libraries (io, vision, audio, models) that sit beside libtensorcore, so their
// ops are registered even when the program did not link them (the linker's --as-needed drops a
// library no symbol of which is used). Called by Module::load; harmless when already loaded.
void load_domain_op_libraries();

}  // namespace tc::jit
