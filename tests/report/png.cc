// A minimal PNG reader (tests/report/png.h): chunks, zlib inflate, the five
// row filters.
#include "tests/report/png.h"

#include <zlib.h>

#include <cstdlib>

namespace memwal::checker {
namespace {

uint32_t BigEndian(std::string_view bytes, std::size_t at) {
  return (uint32_t(uint8_t(bytes[at])) << 24) |
         (uint32_t(uint8_t(bytes[at + 1])) << 16) |
         (uint32_t(uint8_t(bytes[at + 2])) << 8) |
         uint32_t(uint8_t(bytes[at + 3]));
}

int Paeth(int a, int b, int c) {
  const int p = a + b - c;
  const int pa = std::abs(p - a), pb = std::abs(p - b), pc = std::abs(p - c);
  if (pa <= pb && pa <= pc) return a;
  return pb <= pc ? b : c;
}

}  // namespace

Result<Image> DecodePng(std::string_view bytes) {
  if (bytes.size() < 8 ||
      bytes.substr(0, 8) != std::string_view("\x89PNG\r\n\x1a\n", 8))
    return Status::InvalidArgument("not a PNG");
  Image image;
  int channels = 0;
  std::string data;
  for (std::size_t at = 8; at + 12 <= bytes.size();) {
    const uint32_t length = BigEndian(bytes, at);
    if (at + 12 + length > bytes.size())
      return Status::InvalidArgument("truncated chunk");
    const std::string_view type = bytes.substr(at + 4, 4);
    const std::string_view body = bytes.substr(at + 8, length);
    if (type == "IHDR") {
      image.width = static_cast<int>(BigEndian(body, 0));
      image.height = static_cast<int>(BigEndian(body, 4));
      const int depth = uint8_t(body[8]), colour = uint8_t(body[9]),
                interlace = uint8_t(body[12]);
      if (depth != 8 || (colour != 2 && colour != 6) || interlace != 0)
        return Status::InvalidArgument("unsupported PNG kind");
      channels = colour == 2 ? 3 : 4;
    } else if (type == "IDAT") {
      data.append(body);
    }
    at += 12 + length;
  }
  if (channels == 0 || image.width <= 0 || image.height <= 0)
    return Status::InvalidArgument("no IHDR");
  const std::size_t stride = static_cast<std::size_t>(image.width) * channels;
  std::vector<uint8_t> raw((stride + 1) * image.height);
  uLongf raw_size = raw.size();
  if (uncompress(raw.data(), &raw_size,
                 reinterpret_cast<const Bytef*>(data.data()),
                 data.size()) != Z_OK ||
      raw_size != raw.size())
    return Status::InvalidArgument("bad image data");
  std::vector<uint8_t> previous(stride, 0), row(stride);
  image.pixels.reserve(static_cast<std::size_t>(image.width) * image.height);
  for (int y = 0; y < image.height; ++y) {
    const uint8_t* line = &raw[y * (stride + 1)];
    const int filter = line[0];
    for (std::size_t x = 0; x < stride; ++x) {
      const int a = x >= std::size_t(channels) ? row[x - channels] : 0;
      const int b = previous[x];
      const int c = x >= std::size_t(channels) ? previous[x - channels] : 0;
      int predictor = 0;
      switch (filter) {
        case 0:
          predictor = 0;
          break;
        case 1:
          predictor = a;
          break;
        case 2:
          predictor = b;
          break;
        case 3:
          predictor = (a + b) / 2;
          break;
        case 4:
          predictor = Paeth(a, b, c);
          break;
        default:
          return Status::InvalidArgument("bad filter");
      }
      row[x] = static_cast<uint8_t>(line[1 + x] + predictor);
    }
    for (int x = 0; x < image.width; ++x) {
      const uint8_t* p = &row[x * channels];
      image.pixels.push_back((uint32_t(p[0]) << 16) | (uint32_t(p[1]) << 8) |
                             p[2]);
    }
    previous = row;
  }
  return image;
}

}  // namespace memwal::checker
