// Read side and retirement rule; see read.h.
#include "impl/read.h"

#include <algorithm>
#include <memory>
#include <string>

#include "impl/blob_cache.h"
#include "impl/format.h"

namespace memwal::impl {
namespace {

const ShardGenerations* EntryOf(const CatchupTable& table,
                                const std::string& name) {
  const auto it = table.find(name);
  return it == table.end() ? nullptr : &it->second;
}

// Does this version read a missing catch-up entry as "caught up" (R12, R1)?
bool MissingMeansCaughtUp(const VersionView& version, Protocol protocol) {
  switch (protocol) {
    case Protocol::kLegacy:
      return true;
    case Protocol::kUnconditional:
      return false;
    default:
      return !version.both_bits;
  }
}

}  // namespace

namespace {

// The progress a system index's details record: compacted_sstables and
// index_catchup.
struct Progress {
  ShardGenerations compacted;
  CatchupTable catchup;
};

// Most versions carry the details of the version before them byte for byte
// (only a progress or compaction commit changes them), so their decoding is
// kept per thread by those bytes (type and value: all UnpackMemWalDetails
// reads); a different byte is a different key.
Result<std::shared_ptr<const Progress>> ProgressOf(
    const pb::IndexMetadata& system) {
  thread_local TwoGenerations<std::string, std::shared_ptr<const Progress>,
                              20'000>
      decoded;
  thread_local std::string key;
  const google::protobuf::Any& any = system.index_details();
  key.assign(any.type_url()).push_back('\0');
  key.append(any.value());
  if (const std::shared_ptr<const Progress>* hit = decoded.Find(key))
    return *hit;
  MEMWAL_ASSIGN_OR_RETURN(const pb::MemWalIndexDetails details,
                          UnpackMemWalDetails(system));
  auto progress = std::make_shared<const Progress>(
      Progress{Generations(details.compacted_sstables()), Catchup(details)});
  decoded.Put(key, progress);
  return std::shared_ptr<const Progress>(std::move(progress));
}

Result<VersionView> DecodeView(const ManifestFile& file) {
  VersionView view;
  // MemWalDetails' system index, its details decoded once per bytes.
  if (const pb::IndexMetadata* system = FindMemWalIndex(file.index_section)) {
    MEMWAL_ASSIGN_OR_RETURN(const std::shared_ptr<const Progress> progress,
                            ProgressOf(*system));
    view.compacted = progress->compacted;
    view.catchup = progress->catchup;
  }
  // The user indexes' names, read without decoding their bitmaps: a view is
  // made of a Snapshot, which only LoadVersion makes, from a decoding that
  // passed CheckManifestFile (every bitmap decodes).
  for (const pb::IndexMetadata& index : file.index_section.indices()) {
    if (!IsMemWalIndex(index)) view.indexes.insert(index.name());
  }
  view.both_bits = (file.manifest.reader_feature_flags() & 128) != 0 &&
                   (file.manifest.writer_feature_flags() & 128) != 0;
  return view;
}

}  // namespace

Result<std::shared_ptr<const VersionView>> SharedViewOf(
    const Snapshot& snapshot) {
  // A decoded manifest is immutable (Snapshot holds it const), so its view is
  // a function of its address while the entry keeps it alive.
  thread_local IdentityCache<ManifestFile, VersionView, 40'000> views;
  return views.Get(snapshot.file, DecodeView);
}

Result<VersionView> ViewOf(const Snapshot& snapshot) {
  MEMWAL_ASSIGN_OR_RETURN(const std::shared_ptr<const VersionView> view,
                          SharedViewOf(snapshot));
  return *view;
}

uint64_t ExclusionWatermark(const VersionView& head, const std::string& shard,
                            const std::vector<std::string>& query,
                            Protocol protocol, ReadMode mode, BugSet bugs) {
  uint64_t watermark = GenerationFor(head.compacted, shard);
  if (watermark == 0) return 0;
  // lancedb #3911: strict only when the table requires catch-up (both bits);
  // #3980 always.
  bool requires_catchup =
      protocol == Protocol::kUnconditional ||
      ((protocol == Protocol::kDerived || protocol == Protocol::kAdvance) &&
       head.both_bits && !bugs.has(Bug::kReaderIgnoresBit));
  const bool strict = mode == ReadMode::kStrict && requires_catchup;
  const bool first_only =
      mode == ReadMode::kSingleIndex || bugs.has(Bug::kSingleIndexWatermark);
  for (const std::string& name : query) {
    const ShardGenerations* entry = EntryOf(head.catchup, name);
    const uint64_t position =
        entry == nullptr ? 0 : GenerationFor(*entry, shard);
    if (position > 0) {
      watermark = std::min(watermark, position);
    } else if (strict) {
      watermark = 0;  // A missing entry retains everything.
    }
    if (first_only) break;
  }
  return watermark;
}

bool Retirable(const std::vector<const VersionView*>& retained,
               const std::string& shard, uint64_t generation,
               Protocol protocol) {
  MEMWAL_ASSERT(generation > 0);
  MEMWAL_ASSERT(!retained.empty());
  for (const VersionView* view : retained) {
    const VersionView& version = *view;
    if (generation > GenerationFor(version.compacted, shard)) return false;
    for (const std::string& name : version.indexes) {
      const ShardGenerations* entry = EntryOf(version.catchup, name);
      const uint64_t position =
          entry == nullptr ? 0 : GenerationFor(*entry, shard);
      if (position >= generation) continue;
      if (position == 0 && MissingMeansCaughtUp(version, protocol)) continue;
      return false;
    }
  }
  return true;
}

bool Retirable(const std::vector<VersionView>& retained,
               const std::string& shard, uint64_t generation,
               Protocol protocol) {
  std::vector<const VersionView*> views;
  for (const VersionView& version : retained) views.push_back(&version);
  return Retirable(views, shard, generation, protocol);
}

}  // namespace memwal::impl
