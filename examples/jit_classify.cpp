// Runs a classifier exported by examples/jit_export_classifier.py (decode + transforms + model in
// one file) on image files, with no Python:
//
//   build/examples/jit_classify model.tcj a.jpg b.png
//
// prints "<file> class:prob class:prob class:prob" (top 3), as the Python script does. It links
// only the core library: the decode and vision ops the graph names come from the libraries
// beside libtensorcore, which tc::jit::load opens.
#include <cstdio>
#include <fstream>
#include <iterator>
#include <vector>

#include <tensorcore/jit.h>
#include <tensorcore/tensorcore.h>

static tc::Tensor file_bytes(const char* path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw tc::ValueError(std::string("cannot open ") + path);
  std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)),
                             std::istreambuf_iterator<char>());
  return tc::from_vector(bytes, {int64_t(bytes.size())});
}

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: %s model.tcj image...\n", argv[0]);
    return 2;
  }
  try {
    tc::jit::Module model = tc::jit::load(argv[1]);
    for (int i = 2; i < argc; ++i) {
      tc::Tensor probs = model.forward({file_bytes(argv[i])}).to_tensor();
      auto [values, indices] = tc::topk(tc::select(probs, 0, 0), 3);
      std::printf("%s", argv[i]);
      for (int64_t k = 0; k < 3; ++k)
        std::printf(" %lld:%.5f", static_cast<long long>(indices.data<int64_t>()[k]),
                    static_cast<double>(values.data<float>()[k]));
      std::printf("\n");
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
  return 0;
}
