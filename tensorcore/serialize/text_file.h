#pragma once
// Whole-file reading for the loaders of small text documents (the saved transforms pipelines).
#include <string>

namespace tc::serialize {

// The contents of the file at `path`. A file that cannot be opened raises ValueError with
// `cannot_open` as its message, so each loader keeps its own wording.
std::string read_text_file(const std::string& path, const std::string& cannot_open);

}  // namespace tc::serialize
