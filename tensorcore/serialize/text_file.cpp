#include "tensorcore/serialize/text_file.h"

#include <fstream>
#include <sstream>

#include "tensorcore/core/error.h"

namespace tc::serialize {

std::string read_text_file(const std::string& path, const std::string& cannot_open) {
  std::ifstream f(path, std::ios::binary);
  TC_CHECK(f.good(), cannot_open);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

}  // namespace tc::serialize
