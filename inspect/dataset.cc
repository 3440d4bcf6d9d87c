// Dataset loading; see dataset.h.
#include "inspect/dataset.h"

#include <algorithm>

#include "impl/bitmap.h"
#include "inspect/files.h"
#include "inspect/roaring_check.h"

namespace memwal::inspect {
namespace {

// Decodes the system index's details; a foreign details type is a note, not an
// error.
Status DecodeMemWal(const std::string& where, Notes* notes,
                    DatasetVersion* out) {
  for (const IndexMetadata& index : out->contents.indices) {
    if (index.name != kMemWalIndexName) continue;
    out->memwal_uuid = index.uuid;
    const std::string type_url =
        index.index_details ? index.index_details->type_url : "";
    if (!type_url.ends_with("MemWalIndexDetails")) {
      notes->push_back(Note{
          where, "__lance_mem_wal has index_details of type \"" + type_url +
                     "\", not MemWalIndexDetails; its details are not read"});
      return Status::Ok();
    }
    MEMWAL_ASSIGN_OR_RETURN(
        out->memwal,
        DecodeMemWalIndexDetails(index.index_details->value, where, notes));
    return Status::Ok();
  }
  return Status::Ok();
}

// Every fragment bitmap must be one portable Roaring bitmap; empty means
// unknown coverage.
Status CheckBitmaps(const std::string& where, const ManifestFile& file) {
  for (size_t i = 0; i < file.indices.size(); ++i) {
    const Status layout = CheckPortableRoaring(file.indices[i].fragment_bitmap);
    const Result<impl::Coverage> coverage =
        layout.ok()
            ? impl::DecodeFragmentBitmap(file.indices[i].fragment_bitmap)
            : Result<impl::Coverage>(layout);
    if (!coverage.ok()) {
      return Status::Corruption(where + ": index \"" + file.indices[i].name +
                                "\" segment " + std::to_string(i) + ": " +
                                coverage.status().message());
    }
  }
  return Status::Ok();
}

// Manifests without an embedded Transaction block (older Lance, our own writer)
// name their transaction file; a missing one is a note (only the history checks
// need it), a corrupt one an error like any other corrupt file.
Status LoadTransactionFile(const std::string& root, Notes* notes,
                           DatasetVersion* out) {
  const std::string& name = out->contents.manifest.transaction_file;
  if (out->contents.transaction.has_value() || name.empty())
    return Status::Ok();
  const std::string path = root + "/_transactions/" + name;
  const Result<std::string> bytes = ReadWholeFile(path);
  if (!bytes.ok()) {
    notes->push_back(Note{
        path, "transaction file not readable: " + bytes.status().message()});
    return Status::Ok();
  }
  MEMWAL_ASSIGN_OR_RETURN(out->contents.transaction,
                          DecodeTransaction(*bytes, path, notes));
  return Status::Ok();
}

Result<DatasetVersion> LoadVersion(const std::string& root,
                                   const std::string& name, uint64_t version,
                                   Notes* notes) {
  DatasetVersion out;
  out.version = version;
  out.file = "_versions/" + name;
  const std::string path = root + "/" + out.file;
  MEMWAL_ASSIGN_OR_RETURN(const std::string bytes, ReadWholeFile(path));
  MEMWAL_ASSIGN_OR_RETURN(out.contents, DecodeManifestFile(bytes, path, notes));
  if (out.contents.manifest.version != version) {
    notes->push_back(
        Note{path, "file name says version " + std::to_string(version) +
                       ", Manifest.version says " +
                       std::to_string(out.contents.manifest.version)});
  }
  MEMWAL_RETURN_IF_ERROR(CheckBitmaps(path, out.contents));
  MEMWAL_RETURN_IF_ERROR(LoadTransactionFile(root, notes, &out));
  MEMWAL_RETURN_IF_ERROR(DecodeMemWal(path, notes, &out));
  return out;
}

}  // namespace

Result<std::vector<DatasetVersion>> LoadDataset(const std::string& root,
                                                Notes* notes) {
  const std::string versions_dir = root + "/_versions";
  MEMWAL_ASSIGN_OR_RETURN(const std::vector<DirEntry> entries,
                          ListDirectory(versions_dir));
  std::vector<std::pair<uint64_t, std::string>> files;
  for (const DirEntry& entry : entries) {
    const std::optional<uint64_t> version = VersionOfFileName(entry.name);
    if (version.has_value() && !entry.is_directory) {
      files.emplace_back(*version, entry.name);
    } else if (entry.name != "latest_version_hint.json" &&
               !entry.name.starts_with(".tmp-")) {
      notes->push_back(Note{
          versions_dir, "\"" + entry.name + "\" is not a manifest; skipped"});
    }
  }
  if (files.empty())
    return Status::NotFound(versions_dir + ": no manifest files");
  std::sort(files.begin(), files.end());
  std::vector<DatasetVersion> versions;
  for (const auto& [version, name] : files) {
    if (!versions.empty() && versions.back().version == version) {
      return Status::Corruption(versions_dir +
                                ": two manifest files name version " +
                                std::to_string(version));
    }
    MEMWAL_ASSIGN_OR_RETURN(DatasetVersion loaded,
                            LoadVersion(root, name, version, notes));
    versions.push_back(std::move(loaded));
  }
  MEMWAL_ASSERT(!versions.empty());
  return versions;
}

}  // namespace memwal::inspect
