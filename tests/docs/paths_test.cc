// Every repository path named in a source, a comment or a document exists:
// a file or folder of the source tree, or a build output (a test binary, a
// generated protobuf header). A path is a word that starts with one of the
// tree's top folders ("checker/cli/cli.h", "docs/findings.md"); `#include`
// lines (the compiler checks those), globs ("rule_*_test.cc") and
// placeholders in capitals ("fuzz/corpus/T/", "DIR/json") are not checked;
// "a/b.{h,cc}" is both files.
//
// MEMWAL_PATHS_PLANTED=FILE scans FILE too: tests/docs/planted_path_test.sh
// plants a dangling path there and expects the scan to fail naming it.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "read_all.h"

namespace memwal {
namespace {

namespace fs = std::filesystem;

const fs::path kRoot = MEMWAL_SOURCE_DIR;
const fs::path kBuild = MEMWAL_BINARY_DIR;

constexpr const char* kTops[] = {"base",  "bench", "checker", "cmake",
                                 "docs",  "fuzz",  "impl",    "inspect",
                                 "model", "spec",  "tests",   "examples"};

bool IsPlaceholder(const std::string& component) {
  bool upper = false;
  for (char c : component) {
    if (c >= 'a' && c <= 'z') return false;
    if (c >= 'A' && c <= 'Z') upper = true;
  }
  return upper;
}

bool Exists(const std::string& path) {
  const fs::path relative(path);
  const std::string top = *relative.begin();
  for (const fs::path& base :
       {kRoot, kBuild, kBuild / "tests", kBuild / "generated" / top}) {
    if (fs::exists(base / relative)) return true;
  }
  return false;
}

// The paths `text` names, with brace alternatives expanded; globs and
// placeholders left out.
std::vector<std::string> NamedPaths(const std::string& text) {
  std::string tops;
  for (const char* top : kTops) {
    if (!tops.empty()) tops.push_back('|');
    tops.append(top);
  }
  const std::regex path("(^|[^A-Za-z0-9_./-])((" + tops +
                        ")/[A-Za-z0-9_./-]*[A-Za-z0-9_/])");
  std::vector<std::string> found;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    if (line.starts_with("#include")) continue;
    for (std::sregex_iterator m(line.begin(), line.end(), path), end; m != end;
         ++m) {
      std::string name = (*m)[2];
      const std::size_t after = m->position(2) + name.size();
      const std::string rest = line.substr(after);
      if (rest.starts_with("*") || rest.starts_with(".*")) continue;
      bool placeholder = false;
      for (const fs::path& part : fs::path(name))
        placeholder = placeholder || IsPlaceholder(part.string());
      if (placeholder) continue;
      while (name.ends_with(".")) name.pop_back();
      const std::string braces = rest.starts_with(".{")  ? rest.substr(1)
                                 : rest.starts_with("{") ? rest
                                                         : "";
      if (braces.empty() || braces.find('}') == std::string::npos) {
        found.push_back(name);
        continue;
      }
      std::istringstream alternatives(braces.substr(1, braces.find('}') - 1));
      for (std::string alt; std::getline(alternatives, alt, ',');)
        found.push_back(name + (rest.starts_with(".{") ? "." : "") + alt);
    }
  }
  return found;
}

std::vector<std::string> DanglingPaths(const std::string& text) {
  std::vector<std::string> dangling;
  for (const std::string& name : NamedPaths(text)) {
    if (!Exists(name)) dangling.push_back(name);
  }
  return dangling;
}

bool Scanned(const fs::path& path) {
  static const std::set<std::string> kExtensions = {
      ".h",     ".cc", ".md", ".qnt", ".pml", ".proto", ".txt",
      ".cmake", ".py", ".sh", ".yml", ".tsv", ".json"};
  return kExtensions.count(path.extension().string()) != 0;
}

std::vector<fs::path> ScannedFiles() {
  std::vector<fs::path> files = {kRoot / "README.md", kRoot / "CMakeLists.txt",
                                 kRoot / "memwal"};
  if (const char* planted = std::getenv("MEMWAL_PATHS_PLANTED"))
    files.emplace_back(planted);
  for (const char* top : kTops) {
    for (auto entry = fs::recursive_directory_iterator(kRoot / top);
         entry != fs::recursive_directory_iterator(); ++entry) {
      const std::string name = entry->path().filename().string();
      if (entry->is_directory() &&
          (name == "node_modules" || name == "tables" || name == "corpus")) {
        entry.disable_recursion_pending();
        continue;
      }
      // This file plants dangling paths in its own tests.
      if (name == "paths_test.cc") continue;
      if (entry->is_regular_file() && Scanned(entry->path()))
        files.push_back(entry->path());
    }
  }
  return files;
}

TEST(Paths, EveryPathNamedInASourceOrADocumentExists) {
  const std::vector<fs::path> files = ScannedFiles();
  ASSERT_GE(files.size(), 300u);  // The scan found the tree.
  std::size_t named = 0;
  for (const fs::path& file : files) {
    const std::string text = ReadAll(file);
    named += NamedPaths(text).size();
    for (const std::string& path : DanglingPaths(text)) {
      ADD_FAILURE() << fs::relative(file, kRoot).string() << " names " << path
                    << ", which does not exist";
    }
  }
  EXPECT_GE(named, 500u);  // The scan found the paths.
}

TEST(Paths, APlantedDanglingPathIsReported) {
  const std::string text =
      "// see checker/lockstep_cli.h and docs/findings.md, and\n"
      "// checker/report/trace.{h,cc} and checker/report/nothing.{h,cc}\n";
  EXPECT_EQ(DanglingPaths(text),
            (std::vector<std::string>{"checker/lockstep_cli.h",
                                      "checker/report/nothing.h",
                                      "checker/report/nothing.cc"}));
}

TEST(Paths, IncludesGlobsAndPlaceholdersAreNotPaths) {
  EXPECT_EQ(NamedPaths("#include \"checker/no/such.h\"\n"
                       "tests/conformance/rule_*_test.cc fuzz/corpus/T/\n"
                       "docs/README.md."),
            (std::vector<std::string>{"docs/README.md"}));
}

}  // namespace
}  // namespace memwal
