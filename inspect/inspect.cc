// Inspect(): loads the table, its shards and SSTables, infers the protocol,
// then judges.
#include "inspect/inspect.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "base/json_input.h"
#include "inspect/dataset.h"
#include "inspect/files.h"
#include "inspect/judge.h"

namespace memwal::inspect {
namespace {

std::optional<uint64_t> ReadVersionHint(const std::string& path, Notes* notes) {
  const Result<std::string> bytes = ReadWholeFile(path);
  if (!bytes.ok()) return std::nullopt;
  const Result<nlohmann::json> parsed = ParseJsonInput(*bytes);
  const nlohmann::json hint = parsed.ok() ? *parsed : nlohmann::json();
  if (!hint.is_object() || !hint.contains("version") ||
      !hint["version"].is_number_unsigned()) {
    notes->push_back(Note{path, "not {\"version\": N}; ignored"});
    return std::nullopt;
  }
  return hint["version"].get<uint64_t>();
}

// Whether `path` (a shard manifest's SSTable path) names something inside
// the shard directory: relative, no ".." component.
bool StaysInside(const std::string& path) {
  if (path.empty() || path.front() == '/') return false;
  for (const std::filesystem::path& part : std::filesystem::path(path)) {
    if (part == "..") return false;
  }
  return true;
}

// G of a directory named <8 hex digits>_gen_<G> (an SSTable's), or nullopt.
std::optional<uint64_t> GenerationOfDirName(std::string_view name) {
  constexpr std::string_view kInfix = "_gen_";
  if (name.size() <= 8 + kInfix.size() || name.substr(8, 5) != kInfix)
    return std::nullopt;
  for (char c : name.substr(0, 8)) {
    if (!std::isxdigit(static_cast<unsigned char>(c))) return std::nullopt;
  }
  const std::string_view digits = name.substr(8 + kInfix.size());
  if (digits.size() > 19) return std::nullopt;
  uint64_t generation = 0;
  for (char c : digits) {
    if (!std::isdigit(static_cast<unsigned char>(c))) return std::nullopt;
    generation = generation * 10 + static_cast<uint64_t>(c - '0');
  }
  return generation;
}

std::vector<uint64_t> GenerationDirs(const std::string& shard_dir) {
  std::vector<uint64_t> generations;
  const Result<std::vector<DirEntry>> entries = ListDirectory(shard_dir);
  if (!entries.ok()) return generations;
  for (const DirEntry& entry : *entries) {
    const std::optional<uint64_t> generation = GenerationOfDirName(entry.name);
    if (entry.is_directory && generation) generations.push_back(*generation);
  }
  return generations;
}

// The SSTable datasets a shard manifest lists, each with its newest version if
// present.
Status LoadSsTables(const std::string& table_dir, Notes* notes,
                    ShardReport* shard) {
  for (const SsTable& sstable : shard->manifest->sstables) {
    SsTableReport report;
    report.generation = sstable.generation;
    report.path = "_mem_wal/" + shard->uuid + "/" + sstable.path;
    const std::string root = table_dir + "/" + report.path;
    report.outside = !StaysInside(sstable.path);
    report.exists = !report.outside && IsDirectory(root);
    if (report.exists && IsDirectory(root + "/_versions")) {
      MEMWAL_ASSIGN_OR_RETURN(std::vector<DatasetVersion> versions,
                              LoadDataset(root, notes));
      report.latest = std::move(versions.back());
    } else if (report.exists) {
      notes->push_back(Note{
          root, "SSTable directory has no _versions/: not a Lance dataset"});
    }
    shard->sstables.push_back(std::move(report));
  }
  return Status::Ok();
}

// The newest `manifest/<64 bits>.binpb` of the shard directory, decoded.
Status LoadShardManifest(const std::string& shard_dir, Notes* notes,
                         ShardReport* shard) {
  const std::string dir = shard_dir + "/manifest";
  if (!IsDirectory(dir)) {
    notes->push_back(Note{shard_dir, "no manifest/ directory"});
    return Status::Ok();
  }
  MEMWAL_ASSIGN_OR_RETURN(const std::vector<DirEntry> entries,
                          ListDirectory(dir));
  std::optional<std::pair<uint64_t, std::string>> newest;
  bool decimal_names = false;
  for (const DirEntry& entry : entries) {
    bool decimal = false;
    const std::optional<uint64_t> version =
        ShardVersionOfFileName(entry.name, &decimal);
    if (!version.has_value()) continue;
    decimal_names = decimal_names || decimal;
    ++shard->manifest_versions;
    if (!newest || *version > newest->first)
      newest.emplace(*version, entry.name);
  }
  if (decimal_names) {
    notes->push_back(
        Note{dir,
             "shard manifests named by 20 decimal digits of the bit-reversed "
             "version (memwal-check's earlier naming), not Lance's 64 binary "
             "digits"});
  }
  shard->version_hint = ReadVersionHint(dir + "/version_hint.json", notes);
  if (!newest) return Status::Ok();
  shard->manifest_file =
      "_mem_wal/" + shard->uuid + "/manifest/" + newest->second;
  const std::string path = dir + "/" + newest->second;
  MEMWAL_ASSIGN_OR_RETURN(const std::string bytes, ReadWholeFile(path));
  MEMWAL_ASSIGN_OR_RETURN(shard->manifest,
                          DecodeShardManifest(bytes, path, notes));
  if (shard->manifest->version != newest->first) {
    notes->push_back(Note{path, "file name says version " +
                                    std::to_string(newest->first) +
                                    ", ShardManifest.version says " +
                                    std::to_string(shard->manifest->version)});
  }
  return Status::Ok();
}

size_t CountWalEntries(const std::string& shard_dir) {
  const Result<std::vector<DirEntry>> entries =
      ListDirectory(shard_dir + "/wal");
  if (!entries.ok()) return 0;
  return static_cast<size_t>(
      std::count_if(entries->begin(), entries->end(),
                    [](const auto& e) { return e.name.ends_with(".arrow"); }));
}

// 16 raw bytes of a uuid text; empty if `text` is not 32 hex digits (dashes
// allowed).
std::string RawUuid(std::string_view text) {
  std::string hex;
  for (const char c : text) {
    if (c != '-') hex += c;
  }
  if (hex.size() != 32) return "";
  std::string raw;
  for (size_t i = 0; i < 32; i += 2) {
    const auto nibble = [](char c) {
      return std::isdigit(static_cast<unsigned char>(c))
                 ? c - '0'
                 : (std::tolower(c) - 'a' + 10);
    };
    raw += static_cast<char>(nibble(hex[i]) * 16 + nibble(hex[i + 1]));
  }
  return raw;
}

bool IsHexUuid(std::string_view text) {
  if (text.size() != 36) return false;
  for (size_t i = 0; i < text.size(); ++i) {
    const bool dash = i == 8 || i == 13 || i == 18 || i == 23;
    const char c = text[i];
    if (dash != (c == '-')) return false;
    if (!dash && !std::isxdigit(static_cast<unsigned char>(c))) return false;
  }
  return true;
}

Result<std::vector<ShardReport>> LoadShards(const std::string& table_dir,
                                            Notes* notes,
                                            std::string* memwal_problem) {
  std::vector<ShardReport> shards;
  const std::string memwal_dir = table_dir + "/_mem_wal";
  if (const std::string why = NotADirectory(memwal_dir); !why.empty()) {
    if (why != PathErrorText(ENOENT)) *memwal_problem = why;
    return shards;
  }
  MEMWAL_ASSIGN_OR_RETURN(const std::vector<DirEntry> entries,
                          ListDirectory(memwal_dir));
  for (const DirEntry& entry : entries) {
    if (!entry.is_directory || !IsHexUuid(entry.name)) {
      notes->push_back(
          Note{memwal_dir, "\"" + entry.name + "\" is not a shard directory"});
      continue;
    }
    ShardReport shard;
    shard.uuid = entry.name;
    shard.raw_uuid = RawUuid(entry.name);
    const std::string shard_dir = memwal_dir + "/" + entry.name;
    MEMWAL_RETURN_IF_ERROR(LoadShardManifest(shard_dir, notes, &shard));
    if (shard.manifest.has_value()) {
      MEMWAL_RETURN_IF_ERROR(LoadSsTables(table_dir, notes, &shard));
    }
    shard.wal_entries = CountWalEntries(shard_dir);
    shard.generation_dirs = GenerationDirs(shard_dir);
    shards.push_back(std::move(shard));
  }
  return shards;
}

Result<size_t> FindVersion(const std::vector<DatasetVersion>& versions,
                           std::optional<uint64_t> version,
                           const std::string& table_dir) {
  if (!version.has_value()) return versions.size() - 1;
  for (size_t i = 0; i < versions.size(); ++i) {
    if (versions[i].version == *version) return i;
  }
  return Status::NotFound(table_dir + ": no version " +
                          std::to_string(*version) + " (versions " +
                          std::to_string(versions.front().version) + ".." +
                          std::to_string(versions.back().version) + ")");
}

}  // namespace

Result<TableReport> Inspect(const std::string& table_dir,
                            std::optional<uint64_t> version) {
  return Inspect(table_dir,
                 InspectOptions{.version = version, .protocol = std::nullopt});
}

Result<TableReport> Inspect(const std::string& table_dir,
                            const InspectOptions& options) {
  if (!IsDirectory(table_dir))
    return Status::NotFound(table_dir + ": no such directory");
  const TableConfinement confinement(table_dir);
  TableReport report;
  report.table_dir = table_dir;
  MEMWAL_ASSIGN_OR_RETURN(report.versions,
                          LoadDataset(table_dir, &report.notes));
  MEMWAL_ASSIGN_OR_RETURN(
      report.inspected,
      FindVersion(report.versions, options.version, table_dir));
  MEMWAL_ASSIGN_OR_RETURN(
      report.shards,
      LoadShards(table_dir, &report.notes, &report.memwal_dir_problem));
  InferProtocol(options.protocol, &report);
  Judge(&report);
  MEMWAL_ASSERT(report.inspected < report.versions.size());
  return report;
}

}  // namespace memwal::inspect
