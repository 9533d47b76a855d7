#pragma once
// Lives in a subfolder: tensorcore/serialize/*.cpp stays free of Tensor so the fuzz targets
// can compile it standalone.
// tc::Tensor <-> checkpoint files: the PyTorch .pt format (torch.save / torch.load compatible)
// and safetensors. The format layers (pt_format.h, safetensors_format.h) move bytes; this file
// maps those records to tensors, keeping shared storages shared.
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "tensorcore/core/tensor.h"
#include "tensorcore/serialize/pt_format.h"
#include "tensorcore/serialize/safetensors_format.h"

namespace tc::serialize {

// "F32" <-> DType::Float32, ...; throws tc::ValueError for codes tensorcore has no dtype for.
std::string dtype_code(DType dtype);
DType dtype_from_code(const std::string& code);

// Turns tensors into .pt records. One instance per archive: views of one storage become
// records sharing one byte buffer, so the archive (and torch.load) keeps them shared.
class PtRecordMaker {
 public:
  PtTensorRecord make(const Tensor& t);

 private:
  std::map<const StorageImpl*, std::shared_ptr<const std::string>> bytes_of_;
};

// Turns .pt records into tensors (on the CPU). One instance per archive: records sharing a
// byte buffer become views of one Storage, which also owns the buffer (no copy).
class TensorMaker {
 public:
  Tensor make(const PtTensorRecord& r);

 private:
  std::map<const std::string*, Storage> storage_of_;
};

using NamedTensors = std::vector<std::pair<std::string, Tensor>>;

// A dict of named tensors as torch.save(state_dict) would write it.
void save(const NamedTensors& tensors, const std::filesystem::path& path);
// Every tensor of a .pt file (dotted paths, as collect_pt_tensors) or a safetensors file
// (detected from the bytes). Throws FormatError / IoError with a message naming the problem.
NamedTensors load(const std::filesystem::path& path);

void save_safetensors(const NamedTensors& tensors, const std::filesystem::path& path,
                      const std::map<std::string, std::string>& metadata = {});
NamedTensors load_safetensors(const std::filesystem::path& path);
// In-memory forms of the two above.
std::string safetensors_bytes(const NamedTensors& tensors,
                              const std::map<std::string, std::string>& metadata = {});
// share_buffer: tensors whose bytes are aligned for their dtype view file.buffer (kept alive by
// them) instead of being copied; for large read-mostly loads such as tc::jit::load.
NamedTensors tensors_from_safetensors(const SafetensorsFile& file, bool share_buffer = false);

}  // namespace tc::serialize
