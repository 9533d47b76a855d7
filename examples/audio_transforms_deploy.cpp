// Runs an audio front end saved from Python in C++:
//
//   python3 examples/audio_transforms_deploy.py /tmp/frontend.json 0   # saves it, prints Python's
//                                                                       # checksum
//   build/audio_transforms_deploy /tmp/frontend.json 0                 # same checksum from C++
//
// The input is the same synthetic two-channel signal on both sides and the masking generator is
// seeded with the given seed, so the outputs agree bit for bit.
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include <audio/pipeline.h>
#include <tensorcore/tensorcore.h>

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s frontend.json [seed]\n", argv[0]);
    return 2;
  }
  try {
    auto pipe = tc::audio::transforms::Pipeline::load(argv[1]);
    const uint64_t seed = argc > 2 ? std::strtoull(argv[2], nullptr, 10) : 0;
    const int64_t channels = 2, rate = 22050, frames = 2 * rate;
    tc::Tensor wave = tc::empty({channels, frames}, tc::TensorOptions(tc::DType::Float32));
    float* w = wave.data<float>();
    for (int64_t c = 0; c < channels; ++c)
      for (int64_t i = 0; i < frames; ++i) {
        const double t = double(i) / double(rate);
        w[c * frames + i] = float(std::sin(2 * M_PI * (200 + 150 * double(c)) * t * (1 + t)) * 0.5);
      }
    auto gen = std::make_shared<tc::Generator>();
    gen->manual_seed(seed);
    tc::Tensor out = pipe(wave, gen);
    tc::Tensor f = tc::contiguous(tc::to_dtype(out, tc::DType::Float64));
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
