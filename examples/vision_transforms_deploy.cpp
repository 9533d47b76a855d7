// Runs a transforms pipeline saved from Python in C++:
//
//   python3 examples/vision_transforms_deploy.py /tmp/pipe.json   # saves the pipeline, prints
//                                                                   # Python's checksum
//   build/vision_transforms_deploy /tmp/pipe.json 0               # same checksum from C++
//
// The input is the same synthetic uint8 batch on both sides (pixel = (n*7 + c*31 + y*3 + x) % 256)
// and the generator is seeded with the given seed, so the outputs agree bit for bit.
#include <cstdio>
#include <cstdlib>

#include <tensorcore/tensorcore.h>
#include <vision/transforms/pipeline.h>

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s pipeline.json [seed]\n", argv[0]);
    return 2;
  }
  try {
    auto pipe = tc::vision::transforms::Pipeline::load(argv[1]);
    uint64_t seed = argc > 2 ? std::strtoull(argv[2], nullptr, 10) : 0;
    const int64_t N = 4, C = 3, H = 256, W = 256;
    tc::Tensor img = tc::empty({N, C, H, W}, tc::TensorOptions(tc::DType::UInt8));
    uint8_t* p = img.data<uint8_t>();
    for (int64_t n = 0; n < N; ++n)
      for (int64_t c = 0; c < C; ++c)
        for (int64_t y = 0; y < H; ++y)
          for (int64_t x = 0; x < W; ++x) *p++ = uint8_t((n * 7 + c * 31 + y * 3 + x) % 256);
    auto gen = std::make_shared<tc::Generator>();
    gen->manual_seed(seed);
    tc::Tensor out = pipe(img, gen);
    tc::Tensor f = tc::to_dtype(out, tc::DType::Float64);
    double sum = 0, weighted = 0;
    const double* d = f.data<double>();
    for (int64_t i = 0; i < f.numel(); ++i) sum += d[i], weighted += d[i] * double(i % 997);
    std::printf("steps:");
    for (const auto& name : pipe.names()) std::printf(" %s", name.c_str());
    std::printf("\noutput %s %s\nchecksum %.6f %.6f\n", tc::shape_str(out.sizes()).c_str(),
                tc::dtype_name(out.dtype()), sum, weighted);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
  return 0;
}
