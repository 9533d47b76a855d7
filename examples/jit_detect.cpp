// Runs a detector exported by examples/jit_export_detector.py (decode + RetinaNet with its
// resizing, anchors and post-processing in one file) on image files, with no Python:
//
//   build/examples/jit_detect detector.tcj a.jpg b.png
//
// prints, per image, the number of detections and the first five "label score x1 y1 x2 y2", as
// the Python script does.
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

static const tc::Tensor& field(const tc::jit::IValue& dict, const std::string& key) {
  for (const auto& [k, v] : dict.dict_items())
    if (k == key) return v.to_tensor();
  throw tc::ValueError("the detector's output has no '" + key + "'");
}

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: %s detector.tcj image...\n", argv[0]);
    return 2;
  }
  try {
    tc::jit::Module detector = tc::jit::load(argv[1]);
    for (int i = 2; i < argc; ++i) {
      tc::jit::IValue out = detector.forward({file_bytes(argv[i])});
      tc::Tensor boxes = tc::contiguous(field(out, "boxes"));
      tc::Tensor scores = tc::contiguous(field(out, "scores"));
      tc::Tensor labels = tc::contiguous(field(out, "labels"));
      std::printf("%s %lld detections\n", argv[i], static_cast<long long>(boxes.size(0)));
      for (int64_t k = 0; k < std::min<int64_t>(5, boxes.size(0)); ++k) {
        const float* b = boxes.data<float>() + 4 * k;
        std::printf("  %lld %.4f %.2f %.2f %.2f %.2f\n",
                    static_cast<long long>(labels.data<int64_t>()[k]),
                    static_cast<double>(scores.data<float>()[k]), double(b[0]), double(b[1]),
                    double(b[2]), double(b[3]));
      }
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
  return 0;
}
