// libpng vs libspng decode speed on the same files (the measurement behind tc::io's choice of
// PNG library, recorded in docs/imageio.md). Not part of the build:
//   g++ -O2 -std=c++20 benchmarks/imageio_png_libs.cpp -lpng -lspng -o /tmp/png_libs
//   /tmp/png_libs file1.png [file2.png ...]
// Each file is decoded in memory to its native layout (8/16-bit, palettes expanded) repeatedly;
// prints the best time per decode for each library.
#include <png.h>
#include <spng.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <vector>

namespace {

struct Reader {
  const std::vector<unsigned char>* data;
  size_t pos;
};

void read_fn(png_structp png, png_bytep out, png_size_t n) {
  auto* r = static_cast<Reader*>(png_get_io_ptr(png));
  if (n > r->data->size() - r->pos) png_error(png, "eof");
  std::memcpy(out, r->data->data() + r->pos, n);
  r->pos += n;
}

size_t decode_libpng(const std::vector<unsigned char>& file, std::vector<unsigned char>& out) {
  png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, nullptr, nullptr, nullptr);
  png_infop info = png_create_info_struct(png);
  if (setjmp(png_jmpbuf(png))) throw std::runtime_error("libpng failed");
  Reader r{&file, 0};
  png_set_read_fn(png, &r, read_fn);
  png_read_info(png, info);
  if (png_get_color_type(png, info) == PNG_COLOR_TYPE_PALETTE) png_set_palette_to_rgb(png);
  if (png_get_bit_depth(png, info) == 16) png_set_swap(png);
  if (png_get_interlace_type(png, info) != PNG_INTERLACE_NONE) png_set_interlace_handling(png);
  png_read_update_info(png, info);
  size_t h = png_get_image_height(png, info), rb = png_get_rowbytes(png, info);
  out.resize(h * rb);
  std::vector<png_bytep> rows(h);
  for (size_t y = 0; y < h; ++y) rows[y] = out.data() + y * rb;
  png_read_image(png, rows.data());
  png_destroy_read_struct(&png, &info, nullptr);
  return out.size();
}

size_t decode_spng(const std::vector<unsigned char>& file, std::vector<unsigned char>& out) {
  spng_ctx* ctx = spng_ctx_new(0);
  spng_set_png_buffer(ctx, file.data(), file.size());
  spng_ihdr ihdr;
  spng_get_ihdr(ctx, &ihdr);
  int fmt = SPNG_FMT_PNG;
  if (ihdr.color_type == SPNG_COLOR_TYPE_INDEXED) fmt = SPNG_FMT_RGB8;
  size_t n = 0;
  if (spng_decoded_image_size(ctx, fmt, &n)) throw std::runtime_error("spng size");
  out.resize(n);
  if (spng_decode_image(ctx, out.data(), n, fmt, 0)) throw std::runtime_error("spng failed");
  spng_ctx_free(ctx);
  return n;
}

template <typename F>
double best_ms(F&& f, int reps) {
  double best = 1e30;
  for (int i = 0; i < reps; ++i) {
    auto t0 = std::chrono::steady_clock::now();
    f();
    best = std::min(
        best,
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
  }
  return best;
}

}  // namespace

int main(int argc, char** argv) {
  std::printf("%-40s %10s %10s %8s\n", "file", "libpng ms", "spng ms", "png/spng");
  for (int i = 1; i < argc; ++i) {
    std::ifstream f(argv[i], std::ios::binary);
    std::vector<unsigned char> file((std::istreambuf_iterator<char>(f)), {});
    std::vector<unsigned char> a, b;
    double tp = best_ms([&] { decode_libpng(file, a); }, 15);
    double ts = best_ms([&] { decode_spng(file, b); }, 15);
    std::printf("%-40s %10.2f %10.2f %8.2f%s\n", argv[i], tp, ts, tp / ts,
                a == b ? "" : "  (outputs differ!)");
  }
}
