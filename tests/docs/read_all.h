// The whole of a file of the source tree, for the tests that read documents and
// sources.
#ifndef MEMWAL_TESTS_DOCS_READ_ALL_H_
#define MEMWAL_TESTS_DOCS_READ_ALL_H_

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace memwal {

inline std::string ReadAll(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

}  // namespace memwal

#endif  // MEMWAL_TESTS_DOCS_READ_ALL_H_
