// The refinement mapping from impl::World to model terms
// (checker/lockstep/refinement.h).
#include "checker/lockstep/refinement.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <map>
#include <memory>
#include <sstream>
#include <string_view>
#include <thread>
#include <vector>

#include "checker/lockstep/bytes_checks.h"
#include "checker/lockstep/inflight.h"
#include "impl/blob_cache.h"
#include "impl/epoch_cache.h"
#include "impl/format.h"
#include "model/invariants.h"
#include "model/read.h"

namespace memwal::checker::lockstep {
namespace {

using model::State;
using model::Version;

Status Unrepresentable(const std::string& why) {
  return Status::FailedPrecondition("the model cannot represent it: " + why);
}

std::string VersionLabel(uint64_t number) {
  return "version " + std::to_string(number);
}

// `what` names the value in an error; a callable, so that the text is built
// only when there is one (this runs for every version of every new table).
template <typename What>
Result<model::FragmentSet> FragmentsOf(const std::set<uint64_t>& ids,
                                       const What& what) {
  model::FragmentSet set = 0;
  for (const uint64_t id : ids) {
    if (id >= model::kFragmentsMax) {
      return Unrepresentable(what() + " holds fragment " + std::to_string(id));
    }
    set |= static_cast<model::FragmentSet>(1u << id);
  }
  return set;
}

// Renumbers raw uuids by first appearance (a flat list: a table has a few).
class UuidNumbering {
 public:
  Result<uint8_t> Number(const std::string& raw) {
    if (const uint8_t known = Find(raw)) return known;
    if (raws_.size() >= 255)
      return Unrepresentable("more than 255 segment uuids");
    raws_.push_back(raw);
    return static_cast<uint8_t>(raws_.size());
  }
  // 0 when `raw` has no number yet.
  uint8_t Find(const std::string& raw) const {
    const auto it = std::find(raws_.begin(), raws_.end(), raw);
    return it == raws_.end() ? 0 : static_cast<uint8_t>(it - raws_.begin() + 1);
  }
  std::size_t size() const { return raws_.size(); }

 private:
  std::vector<std::string> raws_;  // number k + 1 at k
};

Status AbstractSegments(const model::Config& config,
                        const impl::TableVersion& in, UuidNumbering* uuids,
                        Version* out) {
  for (const auto& [index, segments] : in.segments) {
    if (index >= static_cast<uint32_t>(config.bounds.indexes)) {
      return Unrepresentable(VersionLabel(in.number) + " has index idx_" +
                             std::to_string(index));
    }
    if (segments.size() > model::kSegmentsMax) {
      return Unrepresentable(VersionLabel(in.number) + " index idx_" +
                             std::to_string(index) + " has " +
                             std::to_string(segments.size()) + " segments");
    }
  }
  // Indexes in order, segments in order: the model's canonical order.
  for (const auto& [index, segments] : in.segments) {
    for (std::size_t k = 0; k < segments.size(); ++k) {
      const impl::SegmentView& segment = segments[k];
      const auto what = [&] {
        return VersionLabel(in.number) + " index idx_" + std::to_string(index) +
               " segment " + std::to_string(k);
      };
      if (!segment.covers.has_value()) {
        return Unrepresentable(what() + " has no fragment bitmap");
      }
      model::Segment& target = out->segments[index][k];
      MEMWAL_ASSIGN_OR_RETURN(target.uuid, uuids->Number(segment.uuid));
      MEMWAL_ASSIGN_OR_RETURN(target.covers,
                              FragmentsOf(*segment.covers, what));
    }
  }
  return Status::Ok();
}

template <typename What>
Result<uint8_t> SmallNumber(uint64_t value, const What& what) {
  if (value > 255)
    return Unrepresentable(what() + " is " + std::to_string(value));
  return static_cast<uint8_t>(value);
}

Status AbstractProgress(const model::Config& config,
                        const impl::TableVersion& in, Version* out) {
  const auto label = [&] { return VersionLabel(in.number); };
  for (const auto& [shard, generation] : in.compacted) {
    if (shard >= static_cast<uint32_t>(config.bounds.shards))
      return Unrepresentable(label() + " has progress on shard " +
                             std::to_string(shard));
    MEMWAL_ASSIGN_OR_RETURN(out->compacted[shard], SmallNumber(generation, [&] {
                              return label() + " compacted";
                            }));
  }
  for (const auto& [index, positions] : in.catchup) {
    if (index >= static_cast<uint32_t>(config.bounds.indexes))
      return Unrepresentable(label() + " has a position for idx_" +
                             std::to_string(index));
    for (const auto& [shard, generation] : positions) {
      if (shard >= static_cast<uint32_t>(config.bounds.shards))
        return Unrepresentable(label() + " has a position on shard " +
                               std::to_string(shard));
      MEMWAL_ASSIGN_OR_RETURN(
          out->catchup[index][shard],
          SmallNumber(generation, [&] { return label() + " position"; }));
    }
  }
  return Status::Ok();
}

// A version's persisted fields in model terms; its op is OpsOf's (below).
Result<Version> AbstractVersion(const model::Config& config,
                                const impl::TableVersion& in,
                                UuidNumbering* uuids) {
  Version out;
  const auto label = [&] { return VersionLabel(in.number); };
  MEMWAL_ASSIGN_OR_RETURN(out.number, SmallNumber(in.number, label));
  MEMWAL_ASSIGN_OR_RETURN(
      out.live, FragmentsOf(in.live, [&] { return label() + " live"; }));
  MEMWAL_RETURN_IF_ERROR(AbstractSegments(config, in, uuids, &out));
  MEMWAL_RETURN_IF_ERROR(AbstractProgress(config, in, &out));
  out.reader_bit = in.reader_bit;
  out.writer_bit = in.writer_bit;
  out.retained = in.retained;
  out.mem_wal_dropped = in.mem_wal_index_uuid.empty();
  return out;
}

// The WAL's flushed and retired generations (the shard manifests) and the
// GC's decided, unexecuted retirements.
Status AbstractWal(const model::Config& config, const impl::WalState& wal,
                   const std::set<std::pair<uint32_t, uint64_t>>& pending,
                   State* out) {
  const std::size_t shards = static_cast<std::size_t>(config.bounds.shards);
  if (wal.flushed.size() != shards || wal.retired.size() != shards)
    return Unrepresentable("the WAL has " + std::to_string(wal.flushed.size()) +
                           " shards");
  out->flushed = {};
  out->retired = {};
  out->pending = 0;
  for (std::size_t s = 0; s < shards; ++s) {
    if (wal.flushed[s] > model::kGenerationsMax)
      return Unrepresentable("shard " + std::to_string(s) + " flushed " +
                             std::to_string(wal.flushed[s]));
    out->flushed[s] = static_cast<uint8_t>(wal.flushed[s]);
    for (const uint64_t g : wal.retired[s]) {
      if (g == 0 || g > model::kGenerationsMax)
        return Unrepresentable("shard " + std::to_string(s) + " retired " +
                               std::to_string(g));
      out->retired[s] |= static_cast<model::GenerationSet>(1u << (g - 1));
    }
  }
  for (const auto& [s, g] : pending) {
    if (s >= shards || g == 0 || g > model::kGenerationsMax)
      return Unrepresentable("pending retirement (" + std::to_string(s) + "," +
                             std::to_string(g) + ")");
    out->pending |= model::RowBit(static_cast<int>(s), static_cast<int>(g));
  }
  return Status::Ok();
}

// The implementation's rows (World::ReadRows) in model terms.
struct AbstractRows {
  std::array<model::RowSet, model::kFragmentsMax> rows{};
  model::RowSet deleted = 0;
};

// `what` names the rows in an error (a callable: the text is built only
// when there is one).
template <typename What>
Result<model::RowSet> RowSetOf(
    const model::Config& config,
    const std::set<std::pair<uint32_t, uint64_t>>& rows, const What& what) {
  model::RowSet set = 0;
  for (const auto& [s, g] : rows) {
    if (s >= static_cast<uint32_t>(config.bounds.shards) || g == 0 ||
        g > model::kGenerationsMax) {
      return Unrepresentable(what() + " holds the row (" + std::to_string(s) +
                             "," + std::to_string(g) + ")");
    }
    set |= model::RowBit(static_cast<int>(s), static_cast<int>(g));
  }
  return set;
}

Result<AbstractRows> AbstractRowsOf(const model::Config& config,
                                    const impl::RowsView& view) {
  AbstractRows out;
  for (const auto& [fragment, rows] : view.fragments) {
    const auto what = [&] { return "fragment " + std::to_string(fragment); };
    if (fragment >= model::kFragmentsMax)
      return Unrepresentable("the table has " + what());
    MEMWAL_ASSIGN_OR_RETURN(out.rows[fragment], RowSetOf(config, rows, what));
  }
  MEMWAL_ASSIGN_OR_RETURN(out.deleted, RowSetOf(config, view.deleted, [] {
                            return std::string("the deleted rows");
                          }));
  return out;
}

// "{(0,1),(1,2)}" for a RowSet.
std::string FormatRows(model::RowSet rows) {
  std::string out = "{";
  for (int s = 0; s < model::kShardsMax; ++s) {
    for (int g = 1; g <= model::kGenerationsMax; ++g) {
      if (!(rows & model::RowBit(s, g))) continue;
      if (out.size() > 1) out += ",";
      out.push_back('(');
      out.append(std::to_string(s)).push_back(',');
      out.append(std::to_string(g)).push_back(')');
    }
  }
  return out + "}";
}

void DiffRows(const State& impl, const State& model,
              std::vector<std::string>* lines) {
  for (int f = 0; f < model::kFragmentsMax; ++f) {
    if (impl.rows[f] == model.rows[f]) continue;
    lines->push_back("rows: fragment " + std::to_string(f) + " holds " +
                     FormatRows(impl.rows[f]) + " (impl) vs " +
                     FormatRows(model.rows[f]) + " (model)");
  }
  if (impl.deleted != model.deleted) {
    lines->push_back("rows: deleted " + FormatRows(impl.deleted) +
                     " (impl) vs " + FormatRows(model.deleted) + " (model)");
  }
}

// Appends one line per difference of two values.
class DiffWriter {
 public:
  explicit DiffWriter(std::vector<std::string>* lines) : lines_(lines) {}
  template <typename T>
  void Compare(const std::string& what, const T& impl, const T& model) {
    if (impl == model) return;
    std::ostringstream line;
    line << what << " " << impl << " (impl) vs " << model << " (model)";
    lines_->push_back(line.str());
  }
  void CompareSets(const std::string& what, uint64_t impl, uint64_t model) {
    if (impl == model) return;
    lines_->push_back(what + " " + FormatSet(impl) + " (impl) vs " +
                      FormatSet(model) + " (model)");
  }

 private:
  std::vector<std::string>* lines_;
};

// "#3" (built by append: g++ 12 misreports "#" + std::string as overlapping).
std::string UuidLabel(uint8_t uuid) {
  std::string label(1, '#');
  label.append(std::to_string(uuid));
  return label;
}

void DiffSegments(const model::Config& config, const std::string& label,
                  const Version& impl, const Version& model, DiffWriter* out) {
  for (int i = 0; i < config.bounds.indexes; ++i) {
    for (int k = 0; k < model::kSegmentsMax; ++k) {
      const model::Segment& a = impl.segments[i][k];
      const model::Segment& b = model.segments[i][k];
      const std::string what = label + ": index idx_" + std::to_string(i) +
                               " segment " + std::to_string(k);
      if (a.uuid == 0 || b.uuid == 0) {
        out->Compare(what, std::string(a.uuid ? "present" : "absent"),
                     std::string(b.uuid ? "present" : "absent"));
        continue;
      }
      out->Compare(what + " uuid", UuidLabel(a.uuid), UuidLabel(b.uuid));
      out->CompareSets(what + " covers", a.covers, b.covers);
    }
  }
}

// "CreateIndex idx_0 covers {0,1}".
std::string OpLabel(const model::Op& op) {
  std::string out(model::Name(op.kind));
  if (op.fragments != 0) out += " fragments " + FormatSet(op.fragments);
  if (op.index != 0) out += " index " + std::to_string(op.index);
  if (op.new_covers != 0) out += " new covers " + FormatSet(op.new_covers);
  if (op.progress_generation != 0)
    out += " progress (" + std::to_string(op.progress_shard) + "," +
           std::to_string(op.progress_generation) + ")";
  return out;
}

void DiffVersion(const model::Config& config, const Version& impl,
                 const Version& model, DiffWriter* out) {
  const std::string label = VersionLabel(model.number);
  out->Compare(label + ": number", int{impl.number}, int{model.number});
  out->CompareSets(label + ": live", impl.live, model.live);
  DiffSegments(config, label, impl, model, out);
  for (int s = 0; s < config.bounds.shards; ++s) {
    const std::string shard = " shard " + std::to_string(s);
    out->Compare(label + ": compacted" + shard, int{impl.compacted[s]},
                 int{model.compacted[s]});
    for (int i = 0; i < config.bounds.indexes; ++i) {
      out->Compare(label + ": catchup idx_" + std::to_string(i) + shard,
                   int{impl.catchup[i][s]}, int{model.catchup[i][s]});
    }
  }
  out->Compare(label + ": reader_bit", impl.reader_bit, model.reader_bit);
  out->Compare(label + ": writer_bit", impl.writer_bit, model.writer_bit);
  out->Compare(label + ": retained", impl.retained, model.retained);
  out->Compare(label + ": __lance_mem_wal dropped", impl.mem_wal_dropped,
               model.mem_wal_dropped);
  if (!(impl.op == model.op))
    out->Compare(label + ": op (its transaction file)", OpLabel(impl.op),
                 OpLabel(model.op));
}

// The objects a table's key listed (CachedTable): those under its versions
// directory (the first `retained_end`), then those under its archive, in path
// order; valid while the store is not changed.
struct Listed {
  const std::vector<const impl::ObjectMap::value_type*>& objects;
  std::size_t retained_end = 0;
};

// The version's manifest blob among `listed`: retained, or archived by
// CleanupVersions (*retained tells which); null if neither.
impl::Blob ManifestBlob(const impl::World& world, const Listed& listed,
                        uint64_t number, bool* retained) {
  std::string scratch;  // the name is built in place: this runs per version
  const std::string& name = impl::VersionFileNameIn(number, &scratch);
  const std::size_t root = world.table_root().size();
  const std::size_t archive = std::string_view(impl::kArchivePrefix).size();
  for (std::size_t k = 0; k < listed.objects.size(); ++k) {
    // Every listed path starts with the root (archived: under the archive's
    // prefix) and the versions directory, which the name starts with too.
    const std::string& path = listed.objects[k]->first;
    const std::size_t at = k < listed.retained_end ? root : archive + root;
    if (path.size() == at + name.size() &&
        path.compare(at, name.size(), name) == 0) {
      *retained = k < listed.retained_end;
      return listed.objects[k]->second;
    }
  }
  *retained = false;
  return nullptr;
}

struct TableEntry;
using ShardsPtr = std::shared_ptr<const ShardNumbers>;
// The decoding of `blob` that `base` holds, or null (its `retained` flag may
// be the other one: CleanupVersions moves a manifest's blob to the archive).
VersionPtr FromBase(const TableEntry* base, const ShardsPtr& shards,
                    uint64_t number, const impl::Blob& blob);

// `*blob`: the version's manifest blob (null if neither retained nor
// archived), `*retained`: where it was found (TableEntry::retained, which
// decides over the decoding's own flag). `base`: a table of the same World
// decoded before (or null), whose decodings of the same blobs serve. A
// version's decoding is a function of its manifest bytes (which name its
// immutable transaction file) and the run's shard uuids (where the blob was
// found is kept beside it), and a stored blob is never modified, so a World
// stepped from the one `base` decoded shares the decodings of the blobs it
// kept; the others are decoded (impl keeps its own decodings by blob address
// under ReadVersion). A thread-wide cache by blob in front of ReadVersion
// served 1% of the lookups FromBase left (check --preset small --mode dfs,
// first 100,000 states) and cost more than it saved.
Result<VersionPtr> ReadVersionCached(const impl::World& world,
                                     const Listed& listed, uint64_t number,
                                     const ShardsPtr& shards,
                                     const TableEntry* base,
                                     impl::Blob* blob_out, bool* retained) {
  *blob_out = ManifestBlob(world, listed, number, retained);
  if (VersionPtr reused = FromBase(base, shards, number, *blob_out)) {
    // A decoding of this very blob: its number.
    MEMWAL_ASSERT(reused->number == number && reused->transaction != nullptr);
    return reused;
  }
  MEMWAL_ASSIGN_OR_RETURN(impl::TableVersion decoded,
                          world.ReadVersion(number));
  *retained = decoded.retained;
  return VersionPtr(
      std::make_shared<const impl::TableVersion>(std::move(decoded)));
}

std::string ShapeName(model::QueryShape shape) {
  return shape.uses == 0 ? "plain" : "indexes " + FormatSet(shape.uses);
}

// ---- decode once ----
//
// What the checks read from the implementation is a function of its persisted
// objects, and a stored blob is never modified: a World copy shares the blobs
// of its parent, and an action writes new blobs only for what it changes. So
// the decoded table (every version, its abstraction in model terms, and the
// implementation's read-side answers) is kept per set of manifest blobs, and
// the decoded WAL per set of shard-directory blobs; a step that leaves the
// table alone (a flush, a begin, a retirement) reads the table from the cache,
// and one that commits decodes only the versions the table kept with its
// World (KeepDecodedTable) does not hold (ReadVersionCached, above). Keys are
// the objects' blob addresses (ObjectsKey); an entry keeps its blobs alive,
// so an address cannot be reused while the entry exists. One
// cache per thread; the run's implementation options are part of the key,
// since one thread serves several runs.

struct TableEntry {
  std::vector<impl::Blob> keep{};
  Status status = Status::Ok();  // the table could not be decoded
  // Oldest first. Where each was found is `retained` below (a decoding
  // shared with another table may carry that table's flag).
  std::vector<VersionPtr> versions{};
  // Each version's manifest blob (null if it had none), beside `versions`,
  // and the shard uuids they were decoded with: a later table of the same
  // World lineage reuses a decoding whose blob is its own.
  // The shard uuids are shared with the base table they were equal to
  // (ShardsOf), so one address means the same uuids.
  std::vector<impl::Blob> version_blobs{};
  ShardsPtr shards{};
  // Where each version's manifest blob was found (1 retained, 0 archived by
  // CleanupVersions), beside `versions`: a decoding shared with a base table
  // keeps the flag of where the base found the blob, this one decides.
  std::vector<uint8_t> retained{};
  // The versions in model terms, ops decided by their transaction files
  // (checker/lockstep/transactions.h); status: the model cannot represent
  // them.
  Status abstract_status = Status::Ok();
  std::vector<Version> abstract{};
  // Rows per fragment and deleted rows, read from the table's bytes, and the
  // implementation's view they come from (a later table extends it).
  AbstractRows rows{};
  std::shared_ptr<const impl::RowsView> rows_view{};
  // The segment uuids' numbers over the versions (in-flight transactions
  // continue it).
  UuidNumbering uuids{};
  // The table-wide fields, from the manifests of the table and of the tables
  // it was cloned from (its lineage): commits after Init (every version but
  // the first one of the lineage: a clone's version is a commit, R37), one
  // past the head's max_fragment_id, whether a version this protocol
  // committed carries a bit or activates (R3 `activated`), and whether the
  // R64 foreign compactor committed (`foreign_legacy`).
  uint8_t committed = 0;
  uint8_t next_fragment = 0;
  bool activated = false;
  bool foreign_legacy = false;
  // The implementation's read side, asked lazily.
  // By the query's index set (model::QueryShape::uses; the run's config, part
  // of the key, fixes which index numbers that names).
  // (Flat lists: a table is asked about a few shapes and SSTables.)
  std::vector<std::pair<model::IndexSet, Result<std::vector<uint64_t>>>>
      watermarks{};
  std::vector<std::pair<std::pair<uint32_t, uint64_t>, Result<bool>>>
      retirable{};
  // The same answers for the shapes of the implementation's own head, in
  // model terms (ReadsMissNoRows on the implementation); asked once, nothing
  // if the reader could not answer every shape.
  bool reader_asked = false;
  std::optional<model::ReaderWatermarks> reader{};
  // The checks on the decoded head and history alone (bytes_checks.h), made
  // once.
  bool bytes_checked = false;
  std::optional<Finding> zero_entries{};
  std::vector<uint8_t> system_uuid_kept{};
  // SystemIndexUuidDiff against the table's own abstraction: its answer for
  // every model state whose versions equal them (PersistedEqual), which reads
  // only the versions.
  std::vector<std::string> system_uuid_lines{};
  // In-flight transactions abstracted on this table, by the staged
  // transactions (immutable, kept alive here, so an address is not reused
  // while cached): a step that leaves both alone abstracts them once.
  struct Staged {
    std::vector<std::shared_ptr<const impl::pb::Transaction>> keep{};
    Status status = Status::Ok();
    std::array<model::Txn, model::kInflightMax> txns{};
  };
  std::vector<Staged> staged{};  // newest last, at most kStagedMax
};
constexpr std::size_t kStagedMax = 8;

VersionPtr FromBase(const TableEntry* base, const ShardsPtr& shards,
                    uint64_t number, const impl::Blob& blob) {
  if (base == nullptr || blob == nullptr || base->shards != shards)
    return nullptr;
  for (std::size_t k = 0; k < base->versions.size(); ++k) {
    const VersionPtr& version = base->versions[k];
    if (version->number != number) continue;
    // The same blob, retained or moved to the archive by CleanupVersions: its
    // decoding but the flag, which TableEntry::retained keeps.
    return base->version_blobs[k] == blob ? version : nullptr;
  }
  return nullptr;
}

struct WalEntry {
  std::vector<impl::Blob> keep{};
  Result<impl::WalState> wal = impl::WalState{};
};

// Appended to `key` (a thread's, whose capacity stays: no allocation).
void AppendOptionsKey(const impl::World& world, std::string* key) {
  const impl::Options& o = world.options();
  for (uint32_t s = 0; s < o.shards; ++s) key->append(world.shard_uuid(s));
  const uint64_t fields[] = {static_cast<uint64_t>(o.protocol),
                             static_cast<uint64_t>(o.read),
                             static_cast<uint64_t>(o.gc),
                             o.bugs,
                             o.shards,
                             o.indexes,
                             o.seed,
                             o.memwal ? 1u : 0u};
  key->append(reinterpret_cast<const char*>(fields), sizeof(fields));
  key->append(reinterpret_cast<const char*>(o.switches.data()),
              o.switches.size());
  key->push_back('\0');
}

// What a cached entry was made of: the run's options and a root (`head`),
// and the blob of every object under the listed prefixes, in path order
// (`ends`: where each prefix's objects end). Paths need not be in it: the
// objects of one prefix are listed in path order, and a blob is written at
// one path (a manifest names its own version, a shard manifest its
// generation). Compared whole on every hit; a hash of it finds the entry.
struct ObjectsKey {
  std::string head;
  std::vector<const std::string*> blobs;
  std::vector<std::size_t> ends;

  // The store's objects under `prefix` (appended to `held`, valid while the
  // store is not changed).
  void List(const impl::World& world, const std::string& prefix,
            std::vector<const impl::ObjectMap::value_type*>* held) {
    const auto& objects = world.store().objects();
    for (auto it = objects.lower_bound(prefix);
         it != objects.end() &&
         it->first.compare(0, prefix.size(), prefix) == 0;
         ++it) {
      blobs.push_back(it->second.get());
      held->push_back(&*it);
    }
    ends.push_back(blobs.size());
  }
  void Clear(const impl::World& world, const std::string& root) {
    head.clear();
    AppendOptionsKey(world, &head);
    head += root;
    blobs.clear();
    ends.clear();
  }
  std::size_t Hash() const {
    std::size_t hash = std::hash<std::string_view>{}(head);
    const auto mix = [&](uint64_t value) {
      hash = (hash ^ value) * 0x9e3779b97f4a7c15ULL;
      hash ^= hash >> 29;
    };
    for (const std::string* blob : blobs)
      mix(static_cast<uint64_t>(reinterpret_cast<uintptr_t>(blob)));
    for (const std::size_t end : ends) mix(end);
    return hash;
  }
  friend bool operator==(const ObjectsKey&, const ObjectsKey&) = default;
};

// Entries by ObjectsKey, in two generations (impl::TwoGenerations). An entry
// keeps the blobs of its key alive (Entry::keep), so an address in a key
// cannot be reused while the entry is cached.
template <typename Entry>
class EntryCache {
 public:
  // The entry for `key`, and whether it is new (to be filled, its blobs
  // `held` kept with it).
  std::shared_ptr<Entry> Find(
      const ObjectsKey& key,
      const std::vector<const impl::ObjectMap::value_type*>& held,
      bool* added) {
    const std::size_t hash = key.Hash();
    if (const Slot* hit = entries_.Find(hash);
        hit != nullptr && hit->key == key) {
      *added = false;
      return hit->entry;
    }
    // A new entry (where another key hashed alike, it replaces that one).
    *added = true;
    auto entry = std::make_shared<Entry>();
    entry->keep.reserve(held.size());
    for (const impl::ObjectMap::value_type* object : held)
      entry->keep.push_back(object->second);
    return entries_.Put(hash, Slot{key, std::move(entry)}).entry;
  }

 private:
  struct Slot {
    ObjectsKey key;
    std::shared_ptr<Entry> entry;
  };
  impl::TwoGenerations<std::size_t, Slot, 100'000> entries_;
};

// `world`'s shard uuids in order: `base`'s (shared) when they are the same.
ShardsPtr ShardsOf(const impl::World& world, const TableEntry* base) {
  const uint32_t count = world.options().shards;
  if (base != nullptr && base->shards != nullptr &&
      base->shards->uuids.size() == count) {
    bool same = true;
    for (uint32_t s = 0; s < count && same; ++s)
      same = base->shards->uuids[s] == world.shard_uuid(s);
    if (same) return base->shards;
  }
  auto shards = std::make_shared<ShardNumbers>();
  shards->uuids.reserve(count);
  for (uint32_t s = 0; s < count; ++s)
    shards->uuids.push_back(world.shard_uuid(s));
  return shards;
}

// The table-wide fields of TableEntry from the lineage and its ops.
// `prefix`: an entry whose own versions are this one's first ones (the same
// blobs) over the same clone sources, whose ops and flags then serve.
Status AbstractLineage(const model::Config& config,
                       const std::vector<const impl::TableVersion*>& lineage,
                       const ShardNumbers& shards, const TableEntry* prefix,
                       TableEntry* entry) {
  const std::size_t own = entry->versions.size();
  MEMWAL_ASSERT(lineage.size() >= own && entry->abstract.size() == own);
  // Lineage entries before `from` are the prefix's, which decided their ops
  // and flags (an op is a function of its version and the ones before it).
  std::size_t from = 0;
  // A thread's (its storage stays: no allocation per table).
  thread_local std::vector<model::Op> ops;
  ops.clear();
  if (prefix != nullptr) {
    MEMWAL_ASSERT(prefix->versions.size() <= own && !prefix->abstract.empty());
    from = lineage.size() - own + prefix->versions.size();
    ops.resize(from);
    ops.back() = prefix->abstract.back().op;
    entry->activated = prefix->activated;
    entry->foreign_legacy = prefix->foreign_legacy;
  }
  for (std::size_t k = from; k < lineage.size(); ++k) {
    MEMWAL_ASSIGN_OR_RETURN(const model::Op op,
                            OpOfVersion(config, lineage, k, shards,
                                        k == 0 ? nullptr : &ops.back()));
    ops.push_back(op);
  }
  for (std::size_t k = lineage.size() - own; k < lineage.size(); ++k) {
    if (k >= from) entry->abstract[k - (lineage.size() - own)].op = ops[k];
  }
  if (lineage.size() - 1 > 255)
    return Unrepresentable("the lineage has " + std::to_string(lineage.size()) +
                           " versions");
  entry->committed = static_cast<uint8_t>(lineage.size() - 1);
  const uint64_t next = entry->versions.back()->max_fragment_id + 1;
  if (next > model::kFragmentsMax)
    return Unrepresentable("max_fragment_id is " + std::to_string(next - 1));
  entry->next_fragment = static_cast<uint8_t>(next);
  for (std::size_t k = from; k < lineage.size(); ++k) {
    const model::OpKind kind = ops[k].kind;
    // A clone's version is no commit of a protocol's own (R37 keeps the flag).
    const bool clone = lineage[k]->op == impl::OpKind::kShallowClone;
    const bool bits = lineage[k]->reader_bit || lineage[k]->writer_bit;
    if (kind == model::OpKind::kActivate ||
        (bits && !clone && !model::IsForeignOp(kind) &&
         kind != model::OpKind::kForeignHalfSet))
      entry->activated = true;
    if (kind == model::OpKind::kForeignCompaction && !clone)
      entry->foreign_legacy = true;
  }
  return Status::Ok();
}

// The versions part of the abstraction, shared by AbstractPersisted (the
// World's versions) and AbstractVersions (a caller's): `entry->versions` are
// the table's own versions, the last ones of `lineage` (its clone sources'
// first); sets entry->abstract_status when the model cannot represent them.
// `prefix` (or null): an entry whose own versions decode the blobs of this
// one's first versions (retention aside) over the same clone sources, and
// abstracted without error; its abstraction of them serves, uuid numbering
// included (numbered oldest first, so the newer versions continue it).
void AbstractTable(const model::Config& config,
                   const std::vector<const impl::TableVersion*>& lineage,
                   const ShardNumbers& shards, const impl::RowsView& rows,
                   const TableEntry* prefix, TableEntry* entry) {
  if (entry->versions.empty()) {
    entry->abstract_status = Unrepresentable("the table has no version");
    return;
  }
  if (entry->versions.size() > model::kVersionsMax) {
    entry->abstract_status =
        Unrepresentable("the history has " +
                        std::to_string(entry->versions.size()) + " versions");
    return;
  }
  entry->abstract.reserve(entry->versions.size());
  if (prefix != nullptr) {
    entry->uuids = prefix->uuids;
    for (std::size_t k = 0; k < prefix->abstract.size(); ++k) {
      // A decoding of the same blob: only where it was found may differ.
      entry->abstract.push_back(prefix->abstract[k]);
      entry->abstract.back().retained = entry->retained[k] != 0;
    }
  }
  for (std::size_t k = entry->abstract.size(); k < entry->versions.size();
       ++k) {
    const VersionPtr& version = entry->versions[k];
    // Lockstep's contract with the decoder: a decoded version carries its
    // transaction file, and the versions are listed oldest first.
    MEMWAL_ASSERT(version->transaction != nullptr);
    MEMWAL_ASSERT(entry->abstract.empty() ||
                  version->number >
                      entry->versions[entry->abstract.size() - 1]->number);
    Result<Version> abstract = AbstractVersion(config, *version, &entry->uuids);
    if (!abstract.ok()) {
      entry->abstract_status = abstract.status();
      return;
    }
    entry->abstract.push_back(*abstract);
    entry->abstract.back().retained = entry->retained[k] != 0;
  }
  const Status table_wide =
      AbstractLineage(config, lineage, shards, prefix, entry);
  if (!table_wide.ok()) {
    entry->abstract_status = table_wide;
    return;
  }
  Result<AbstractRows> abstract_rows = AbstractRowsOf(config, rows);
  if (!abstract_rows.ok()) {
    entry->abstract_status = abstract_rows.status();
    return;
  }
  entry->rows = *abstract_rows;
}

// `base` if its own versions are the first ones of `entry` (read so far),
// blob for blob, at most one fewer, and it was decoded and abstracted
// without error; else null.
const TableEntry* ExtendableBase(const TableEntry* base,
                                 const TableEntry& entry) {
  if (base == nullptr || !base->status.ok() || !base->abstract_status.ok() ||
      base->rows_view == nullptr || base->shards != entry.shards ||
      base->versions.empty() ||
      base->version_blobs.size() > entry.version_blobs.size() ||
      base->version_blobs.size() + 1 < entry.version_blobs.size())
    return nullptr;
  for (std::size_t k = 0; k < base->version_blobs.size(); ++k) {
    if (base->version_blobs[k] == nullptr ||
        base->version_blobs[k] != entry.version_blobs[k] ||
        base->versions[k]->number != entry.versions[k]->number)
      return nullptr;
  }
  return base;
}

void FillTable(const model::Config& config, const impl::World& world,
               const Listed& listed, const TableEntry* base,
               TableEntry* entry) {
  Result<std::vector<uint64_t>> numbers = world.Versions();
  if (!numbers.ok()) {
    entry->status = numbers.status();
    return;
  }
  entry->shards = ShardsOf(world, base);
  entry->versions.reserve(numbers->size());
  entry->version_blobs.reserve(numbers->size());
  entry->retained.reserve(numbers->size());
  for (const uint64_t number : *numbers) {
    impl::Blob blob;
    bool retained = false;
    Result<VersionPtr> version = ReadVersionCached(
        world, listed, number, entry->shards, base, &blob, &retained);
    if (!version.ok()) {
      entry->status = version.status();
      return;
    }
    entry->versions.push_back(std::move(*version));
    entry->version_blobs.push_back(std::move(blob));
    entry->retained.push_back(retained ? 1 : 0);
  }
  // A base whose versions are this table's first ones, blob for blob (its
  // decodings of them serve whatever their retention): a CleanupVersions
  // archived some of them, or a commit added one. Its rows and abstraction
  // are extended rather than made again.
  const TableEntry* prefix = ExtendableBase(base, *entry);
  Result<std::shared_ptr<const impl::RowsView>> shared =
      prefix == nullptr ? world.SharedRows()
      : prefix->versions.size() == entry->versions.size()
          ? Result<std::shared_ptr<const impl::RowsView>>(prefix->rows_view)
          : world.SharedRowsAfter(*prefix->rows_view,
                                  entry->versions.back()->number);
  if (!shared.ok()) {
    entry->status = shared.status();
    return;
  }
  entry->rows_view = *shared;
  const impl::RowsView& rows = **shared;
  // A thread's (its storage stays: no allocation per table).
  thread_local std::vector<const impl::TableVersion*> lineage;
  lineage.clear();
  for (const impl::TableVersion& source : rows.sources)
    lineage.push_back(&source);
  for (const VersionPtr& version : entry->versions)
    lineage.push_back(version.get());
  AbstractTable(config, lineage, *entry->shards, rows, prefix, entry);
}

// In front of each EntryCache below, an impl::EpochCache by the epoch of the
// objects the entry's key lists (impl/memory_store.h): the table's by its
// manifests' (versions) epoch, the WAL's by the WAL's. A World's options and
// shard uuids are fixed along its lineage (its root is part of the key), so a
// hit is the entry the blob key would find, without listing the objects to
// build that key (and a begin that writes only a data file is a hit).
constexpr std::size_t kEpochSlots = 4096;

// The decoded table kept with a World (impl::World::annotation): the entry
// and the key it was found by, on the thread that filled it (its lazily
// asked answers are that thread's to fill).
struct TableMemo {
  uint64_t epoch = 0;
  std::string root;
  std::thread::id thread;
  std::shared_ptr<TableEntry> entry;
};
constexpr char kTableMemoOwner = 0;

const TableMemo* TableMemoOf(const impl::World& world) {
  const impl::World::Annotation& annotation = world.annotation();
  if (annotation.owner != &kTableMemoOwner || annotation.value == nullptr)
    return nullptr;
  return static_cast<const TableMemo*>(annotation.value.get());
}

// Whether `kept` is the decoding of `world`'s table as it is now (not an
// ancestor's); `same_thread`: and filled on this thread.
bool IsCurrent(const TableMemo* kept, const impl::World& world,
               bool same_thread) {
  return kept != nullptr && kept->epoch == world.store().versions_epoch() &&
         kept->root == world.table_root() &&
         (!same_thread || kept->thread == std::this_thread::get_id());
}

std::shared_ptr<TableEntry> CachedTable(const model::Config& config,
                                        const impl::World& world) {
  const TableMemo* kept = TableMemoOf(world);
  if (IsCurrent(kept, world, /*same_thread=*/true)) return kept->entry;
  // Else the table kept with this World is an ancestor's (read-only here):
  // its decodings of the blobs this table still has serve.
  const TableEntry* base = kept == nullptr ? nullptr : kept->entry.get();
  thread_local impl::EpochCache<std::shared_ptr<TableEntry>, kEpochSlots> memo;
  return memo.Get(world.store().versions_epoch(), world.table_root(), [&] {
    thread_local EntryCache<TableEntry> cache;
    thread_local ObjectsKey key;
    thread_local std::vector<const impl::ObjectMap::value_type*> held;
    // Built in place (a thread's, whose capacity stays: no allocation).
    thread_local std::string versions;
    thread_local std::string archived;
    versions.assign(world.table_root()).append(impl::kVersionsDir);
    archived.assign(impl::kArchivePrefix).append(versions);
    key.Clear(world, world.table_root());
    held.clear();
    key.List(world, versions, &held);
    key.List(world, archived, &held);
    bool added = false;
    std::shared_ptr<TableEntry> entry = cache.Find(key, held, &added);
    if (added) {
      FillTable(config, world, Listed{held, key.ends.front()}, base,
                entry.get());
    }
    // A cached table is decoded whole or carries why not.
    MEMWAL_ASSERT(!entry->status.ok() || !entry->abstract_status.ok() ||
                  entry->abstract.size() == entry->versions.size());
    return entry;
  });
}

}  // namespace

void KeepDecodedTable(const model::Config& config, impl::World* world) {
  const TableMemo* kept = TableMemoOf(*world);
  if (IsCurrent(kept, *world, /*same_thread=*/true)) return;
  auto memo = std::make_shared<TableMemo>(
      TableMemo{.epoch = world->store().versions_epoch(),
                .root = world->table_root(),
                .thread = std::this_thread::get_id(),
                .entry = CachedTable(config, *world)});
  world->set_annotation({&kTableMemoOwner, std::move(memo)});
}

// Byte-identical tables reached by different paths (two orders of the same
// steps) hold equal bytes in different blobs, so the decodings kept by blob
// address (above, and impl's) would be made again for each. Found by the
// store's digest of its table's part (impl::MemoryStore::table_digest: every
// object outside the MemWAL's part, path and bytes: the table, its archive
// and its clone sources; the WAL is decoded by its own blobs) and confirmed
// on the bytes themselves, the first such table's blobs are given to the
// later ones. What a World holds is unchanged (the same bytes at the same
// paths, impl::MemoryStore::ShareIdentical), so no check reads anything but
// its own bytes; only the decodings are shared.
void ShareIdenticalTable(impl::World* world) {
  const TableMemo* kept = TableMemoOf(*world);
  if (IsCurrent(kept, *world, /*same_thread=*/false))
    return;  // the table the parent's check decoded: already shared
  // Two generations (impl::TwoGenerations); an entry is the first store met
  // with the digest (a copy: it shares its objects, and keeps them alive), by
  // the digest folded to one word (a store met under a colliding word is
  // compared below and shares nothing).
  thread_local impl::TwoGenerations<uint64_t, impl::MemoryStore, 100'000>
      first_met;
  const std::pair<uint64_t, uint64_t> digest = world->store().table_digest();
  const uint64_t key = digest.first ^ (digest.second * 0x9e3779b97f4a7c15ULL);
  const impl::MemoryStore* first = first_met.Find(key);
  if (first == nullptr) {
    first_met.Put(key, world->store());
    return;
  }
  // The bytes decide: the two table parts, object by object (a digest that
  // collided shares nothing).
  const auto& mine = world->store().objects();
  const auto& theirs = first->objects();
  if (&mine == &theirs) return;
  // The first store's objects (it is not changed below), by address.
  std::vector<const impl::ObjectMap::value_type*> shared;
  auto a = mine.begin();
  auto b = theirs.begin();
  // What the store worked out when it put the object: its part, and its
  // bytes' hash (unequal hashes: unequal bytes).
  const auto facts = [](const impl::ObjectMap::value_type& object) {
    return static_cast<const impl::ObjectMap::Object&>(object).facts;
  };
  // Objects of the MemWAL's part may differ (and are asked about only then).
  while (a != mine.end() || b != theirs.end()) {
    if (a != mine.end() && b != theirs.end() && &*a == &*b) {
      ++a;  // one object both stores share: the same path and blob
      ++b;
      continue;
    }
    const int order = a == mine.end()     ? 1
                      : b == theirs.end() ? -1
                                          : a->first.compare(b->first);
    if (order != 0) {
      auto& only = order < 0 ? a : b;
      if (!facts(*only).wal) return;
      ++only;
      continue;
    }
    if (a->second != b->second && !facts(*a).wal) {
      const impl::ObjectMap::Facts& x = facts(*a);
      const impl::ObjectMap::Facts& y = facts(*b);
      if (x.low != y.low || x.high != y.high || *a->second != *b->second)
        return;
      shared.push_back(&*b);
    }
    ++a;
    ++b;
  }
  for (const impl::ObjectMap::value_type* object : shared)
    world->mutable_store()->ShareIdentical(object->first, object->second);
}

namespace {

// Keyed by the MemWAL's own objects (its directory under the WAL root), which
// are all World::ReadWal reads.
std::shared_ptr<WalEntry> CachedWal(const impl::World& world) {
  thread_local impl::EpochCache<std::shared_ptr<WalEntry>, kEpochSlots> memo;
  return memo.Get(world.store().wal_epoch(), world.wal_root(), [&] {
    thread_local EntryCache<WalEntry> cache;
    thread_local ObjectsKey key;
    thread_local std::vector<const impl::ObjectMap::value_type*> held;
    thread_local std::string dir;  // built in place, as CachedTable's
    dir.assign(world.wal_root()).append(impl::kMemWalDir);
    key.Clear(world, dir);
    held.clear();
    key.List(world, dir, &held);
    bool added = false;
    std::shared_ptr<WalEntry> entry = cache.Find(key, held, &added);
    if (added) {
      entry->wal = world.ReadWal();
    }
    return entry;
  });
}

// The in-flight transactions (World::inflight(): the staged Lance
// transactions, in begin order) in model terms, their new segments' uuids
// numbered after the versions' (model::Canonicalize's order).
Status AbstractInflightOf(const model::Config& config, const impl::World& world,
                          const TableEntry& table,
                          std::array<model::Txn, model::kInflightMax>* out) {
  const auto& staged = world.inflight();
  std::vector<const impl::TableVersion*> versions;
  versions.reserve(table.versions.size());
  for (const VersionPtr& version : table.versions)
    versions.push_back(version.get());
  std::vector<std::string> fresh;  // raw uuids numbered after the versions'
  const UuidNumberer number = [&](const std::string& raw) -> Result<uint8_t> {
    if (const uint8_t known = table.uuids.Find(raw)) return known;
    for (std::size_t k = 0; k < fresh.size(); ++k) {
      if (fresh[k] == raw)
        return static_cast<uint8_t>(table.uuids.size() + k + 1);
    }
    fresh.push_back(raw);
    if (table.uuids.size() + fresh.size() > 255)
      return Unrepresentable("more than 255 segment uuids");
    return static_cast<uint8_t>(table.uuids.size() + fresh.size());
  };
  // The table's (its key holds the World's shard uuids).
  const ShardNumbers& shards = *table.shards;
  MEMWAL_ASSERT(shards.uuids.size() == world.options().shards);
  for (std::size_t k = 0; k < staged.size(); ++k) {
    MEMWAL_ASSERT(staged[k] != nullptr);
    Result<model::Txn> txn =
        TxnOf(config, world, *staged[k], versions, shards, number);
    if (!txn.ok())
      return Status::FailedPrecondition("in-flight " + std::to_string(k) +
                                        ": " + txn.status().ToString());
    (*out)[k] = *txn;
  }
  return Status::Ok();
}

// The in-flight transactions (World::inflight(): the staged Lance
// transactions, in begin order) in model terms, their new segments' uuids
// numbered after the versions' (model::Canonicalize's order); once per
// table and set of staged transactions.
Status AbstractInflight(const model::Config& config, const impl::World& world,
                        TableEntry* table, State* out) {
  const auto& staged = world.inflight();
  if (staged.size() > model::kInflightMax)
    return Unrepresentable(std::to_string(staged.size()) +
                           " transactions in flight");
  out->inflight_count = static_cast<uint8_t>(staged.size());
  if (staged.empty()) return Status::Ok();
  for (const TableEntry::Staged& entry : table->staged) {
    if (entry.keep == staged) {
      out->inflight = entry.txns;
      return entry.status;
    }
  }
  if (table->staged.size() == kStagedMax)
    table->staged.erase(table->staged.begin());
  TableEntry::Staged& entry = table->staged.emplace_back();
  entry.keep = staged;
  entry.status = AbstractInflightOf(config, world, *table, &entry.txns);
  out->inflight = entry.txns;
  return entry.status;
}

// The abstraction function (AbstractPersisted) from the cached table and
// WAL: every field from the implementation's persisted state, none from the
// model's.
// Every field but the in-flight transactions from an abstracted table, the
// WAL's shard manifests and the GC's decided retirements.
Result<State> AbstractFields(
    const model::Config& config, const TableEntry& table,
    const impl::WalState& wal,
    const std::set<std::pair<uint32_t, uint64_t>>& pending) {
  MEMWAL_RETURN_IF_ERROR(table.abstract_status);
  // Lockstep's contract with the cache: an entry that decoded is complete.
  MEMWAL_ASSERT(!table.abstract.empty() &&
                table.abstract.size() == table.versions.size() &&
                table.abstract.size() <= model::kVersionsMax);
  State out;
  out.rows = table.rows.rows;
  out.deleted = table.rows.deleted;
  out.version_count = static_cast<uint8_t>(table.abstract.size());
  std::copy(table.abstract.begin(), table.abstract.end(), out.versions.begin());
  out.committed = table.committed;
  out.next_fragment = table.next_fragment;
  out.activated = table.activated;
  out.foreign_legacy = table.foreign_legacy;
  MEMWAL_RETURN_IF_ERROR(AbstractWal(config, wal, pending, &out));
  // retire_cover: no byte records which indexes covered a row when the GC
  // retired its SSTable (docs/ghost-fields.md); every retired row counts as
  // covered by every index, so the retirement clause of ReadsMissNoRows asks
  // only that a live fragment still holds it.
  const auto every = static_cast<model::IndexSet>(
      (1u << static_cast<unsigned>(config.bounds.indexes)) - 1u);
  for (std::size_t row = 0; row < out.retire_cover.size(); ++row) {
    const std::size_t s = row / model::kGenerationsMax;
    if (model::Contains(out.retired[s],
                        static_cast<int>(row) % model::kGenerationsMax))
      out.retire_cover[row] = every;
  }
  return out;
}

Result<State> AbstractFrom(const model::Config& config,
                           const impl::World& world, TableEntry* entry,
                           const impl::WalState& wal) {
  MEMWAL_ASSIGN_OR_RETURN(State out,
                          AbstractFields(config, *entry, wal, world.pending()));
  MEMWAL_RETURN_IF_ERROR(AbstractInflight(config, world, entry, &out));
  return out;
}

// The model's in-flight transaction as the bytes can show it (the caller's
// advance offer only where it changes a claim).
model::Txn Visible(const model::Config& config, const State& model,
                   const model::Txn& txn) {
  model::Txn out = txn;
  if (txn.advance != 0) {
    for (int v = 0; v < model.version_count; ++v) {
      if (model.versions[v].number == txn.read_version)
        out.advance = VisibleAdvance(config, model.versions[v], txn);
    }
  }
  return out;
}

// Every field the bytes decide agrees (then Diff has nothing to say); all
// but retire_cover (docs/ghost-fields.md).
bool PersistedEqual(const model::Config& config, const State& impl,
                    const State& model) {
  if (impl.version_count != model.version_count) return false;
  for (int k = 0; k < impl.version_count; ++k) {
    if (!(impl.versions[k] == model.versions[k])) return false;
  }
  for (int s = 0; s < config.bounds.shards; ++s) {
    if (impl.flushed[s] != model.flushed[s] ||
        impl.retired[s] != model.retired[s])
      return false;
  }
  if (impl.inflight_count != model.inflight_count) return false;
  for (int t = 0; t < impl.inflight_count; ++t) {
    if (!(impl.inflight[t] == Visible(config, model, model.inflight[t])))
      return false;
  }
  return impl.pending == model.pending && impl.rows == model.rows &&
         impl.deleted == model.deleted && impl.committed == model.committed &&
         impl.next_fragment == model.next_fragment &&
         impl.activated == model.activated &&
         impl.foreign_legacy == model.foreign_legacy;
}

}  // namespace

namespace {

// The index numbers a query shape uses, in order (World::Watermarks's input).
std::vector<uint32_t> QueryIndexes(const model::Config& config,
                                   model::QueryShape shape) {
  std::vector<uint32_t> indexes;
  for (int i = 0; i < config.bounds.indexes; ++i) {
    if (model::Contains(shape.uses, i))
      indexes.push_back(static_cast<uint32_t>(i));
  }
  return indexes;
}

// World::Watermarks for `shape`, asked once per table when `table` is not
// null (the answer is the table's, valid until the next ask, else it is left
// in `*asked`).
const Result<std::vector<uint64_t>>& AskWatermarks(
    const model::Config& config, const impl::World& world,
    model::QueryShape shape, TableEntry* table,
    Result<std::vector<uint64_t>>* asked) {
  if (table == nullptr) {
    *asked = world.Watermarks(QueryIndexes(config, shape));
    return *asked;
  }
  for (const auto& [uses, answer] : table->watermarks) {
    if (uses == shape.uses) return answer;
  }
  return table->watermarks
      .emplace_back(shape.uses, world.Watermarks(QueryIndexes(config, shape)))
      .second;
}

// The implementation's reader's watermarks for the shapes of AllQueryShapes
// on `impl_abstract` (the implementation's own head), or nothing if it cannot
// answer one (ReadSideLines then reports why). A watermark past every
// generation serves nothing, as kGenerationsMax does.
std::optional<model::ReaderWatermarks> ImplReader(const model::Config& config,
                                                  const impl::World& world,
                                                  const State& impl_abstract,
                                                  TableEntry* table) {
  model::ReaderWatermarks out;
  const model::QueryShapes shapes =
      model::AllQueryShapes(config, impl_abstract);
  for (int q = 0; q < shapes.count; ++q) {
    Result<std::vector<uint64_t>> asked = std::vector<uint64_t>{};
    const Result<std::vector<uint64_t>>& watermarks =
        AskWatermarks(config, world, shapes.shapes[q], table, &asked);
    if (!watermarks.ok() ||
        watermarks->size() != static_cast<std::size_t>(config.bounds.shards))
      return std::nullopt;
    for (int s = 0; s < config.bounds.shards; ++s) {
      out.of[q][s] = static_cast<int>(std::min<uint64_t>(
          (*watermarks)[s], uint64_t{model::kGenerationsMax}));
    }
  }
  return out;
}

// ImplReader, once per table.
const std::optional<model::ReaderWatermarks>& CachedImplReader(
    const model::Config& config, const impl::World& world,
    const State& impl_abstract, TableEntry* table) {
  if (!table->reader_asked) {
    table->reader = ImplReader(config, world, impl_abstract, table);
    table->reader_asked = true;
  }
  return table->reader;
}

// The first invariant broken on the implementation's abstraction, in
// AllInvariants order, with ReadsMissNoRows decided by the implementation's
// reader (`reader`; the model's watermark function on the implementation's
// versions when it could not answer). `missed` receives the row a query
// misses when that is what broke.
const model::Invariant* FirstBrokenOnImplementation(
    const model::Config& config, const State& impl_abstract,
    const std::optional<model::ReaderWatermarks>& reader,
    std::optional<model::MissedRow>* missed) {
  static const model::Invariant* const reads =
      model::FindInvariant("ReadsMissNoRows");
  for (const model::Invariant& invariant : model::AllInvariants()) {
    if (&invariant == reads && reader.has_value()) {
      *missed = model::FirstMissedRow(config, impl_abstract, *reader);
      if (missed->has_value()) return &invariant;
      continue;
    }
    if (!invariant.holds(config, impl_abstract)) return &invariant;
  }
  return nullptr;
}

// "query indexes {0} misses the row (0,1): ...", the reader's answers.
std::string MissedRowLine(const model::Config& config,
                          const State& impl_abstract,
                          const model::ReaderWatermarks& reader,
                          const model::MissedRow& missed) {
  const model::QueryShapes shapes =
      model::AllQueryShapes(config, impl_abstract);
  int q = 0;
  while (q + 1 < shapes.count && !(shapes.shapes[q] == missed.shape)) ++q;
  const std::string row = "(" + std::to_string(missed.shard) + "," +
                          std::to_string(missed.generation) + ")";
  return "query " + ShapeName(missed.shape) + " misses the row " + row +
         ": the implementation's reader's watermark on shard " +
         std::to_string(missed.shard) + " is " +
         std::to_string(reader.of[q][missed.shard]) +
         " (the model's watermark function on these versions: " +
         std::to_string(model::Watermark(config, impl_abstract, missed.shape,
                                         missed.shard)) +
         "), and no fragment visible to the query holds the row";
}

// ReadSideDiff, asking the implementation once per table (`table` caches its
// answers; null: ask every time).
std::vector<std::string> ReadSideLines(const model::Config& config,
                                       const impl::World& world,
                                       const State& model, TableEntry* table) {
  std::vector<std::string> lines;
  DiffWriter out(&lines);
  const model::QueryShapes shapes = model::AllQueryShapes(config, model);
  for (int q = 0; q < shapes.count; ++q) {
    const model::QueryShape shape = shapes.shapes[q];
    // "all" equals index(i) when one index is present: ask once.
    if (q + 1 == shapes.count && q > 0 && shapes.shapes[q - 1] == shape)
      continue;
    Result<std::vector<uint64_t>> asked = std::vector<uint64_t>{};
    const Result<std::vector<uint64_t>>& watermarks =
        AskWatermarks(config, world, shape, table, &asked);
    if (!watermarks.ok()) {
      lines.push_back("query " + ShapeName(shape) +
                      ": the implementation cannot compute watermarks: " +
                      watermarks.status().ToString());
      continue;
    }
    for (int s = 0; s < config.bounds.shards; ++s) {
      const uint64_t impl_mark = s < static_cast<int>(watermarks->size())
                                     ? (*watermarks)[s]
                                     : UINT64_MAX;
      const uint64_t model_mark =
          static_cast<uint64_t>(model::Watermark(config, model, shape, s));
      if (impl_mark == model_mark) continue;  // the label only when needed
      out.Compare("read side: query " + ShapeName(shape) + " shard " +
                      std::to_string(s) + " watermark",
                  impl_mark, model_mark);
    }
  }
  for (int s = 0; s < config.bounds.shards; ++s) {
    for (int g = 1; g <= model.flushed[s]; ++g) {
      if (model::Contains(model.retired[s], g - 1)) continue;
      const auto shard_generation =
          std::make_pair(static_cast<uint32_t>(s), static_cast<uint64_t>(g));
      Result<bool> retirable = false;
      if (table == nullptr) {
        retirable =
            world.Retirable(shard_generation.first, shard_generation.second);
      } else {
        const Result<bool>* known = nullptr;
        for (const auto& [asked, answer] : table->retirable) {
          if (asked == shard_generation) known = &answer;
        }
        if (known == nullptr) {
          known = &table->retirable
                       .emplace_back(shard_generation,
                                     world.Retirable(shard_generation.first,
                                                     shard_generation.second))
                       .second;
        }
        retirable = *known;
      }
      const bool model_retirable = model::Retirable(config, model, s, g);
      if (retirable.ok() && *retirable == model_retirable) continue;
      const std::string what = "retention: SSTable (" + std::to_string(s) +
                               "," + std::to_string(g) + ") retirable";
      if (!retirable.ok()) {
        lines.push_back(what + ": " + retirable.status().ToString());
        continue;
      }
      out.Compare(what, *retirable, model_retirable);
    }
  }
  return lines;
}

}  // namespace

std::vector<std::string> ReadSideDiff(const model::Config& config,
                                      const impl::World& world,
                                      const State& model) {
  return ReadSideLines(config, world, model, nullptr);
}

std::string FormatSet(uint64_t bits) {
  std::string out = "{";
  for (int k = 0; k < 64; ++k) {
    if (!((bits >> k) & 1u)) continue;
    if (out.size() > 1) out += ",";
    out += std::to_string(k);
  }
  return out + "}";
}

Result<State> AbstractPersisted(const model::Config& config,
                                const impl::World& world) {
  const std::shared_ptr<TableEntry> table = CachedTable(config, world);
  const std::shared_ptr<WalEntry> wal = CachedWal(world);
  MEMWAL_RETURN_IF_ERROR(table->status);
  MEMWAL_RETURN_IF_ERROR(wal->wal.status());
  return AbstractFrom(config, world, table.get(), *wal->wal);
}

namespace {

// "CreateIndex read 2 index 0 segment #3 covers {0}".
std::string TxnLabel(const model::Txn& txn) {
  std::string out(model::Name(txn.kind));
  out += " read " + std::to_string(txn.read_version);
  if (txn.shard != 0 || txn.generation != 0)
    out += " (" + std::to_string(txn.shard) + "," +
           std::to_string(txn.generation) + ")";
  if (txn.marker) out += " marker";
  if (txn.fragment != 0 || txn.second_fragment != 0)
    out += " fragments " + std::to_string(txn.fragment) + "," +
           std::to_string(txn.second_fragment);
  if (txn.index != 0) out += " index " + std::to_string(txn.index);
  if (txn.segment.uuid != 0)
    out += " segment " + UuidLabel(txn.segment.uuid) + " covers " +
           FormatSet(txn.segment.covers);
  if (txn.removed_uuid != 0) out += " removes " + UuidLabel(txn.removed_uuid);
  if (txn.advance != 0) out += " offer " + std::to_string(txn.advance - 1);
  return out;
}

}  // namespace

std::vector<std::string> Diff(const model::Config& config,
                              const State& impl_abstract, const State& model) {
  std::vector<std::string> lines;
  DiffWriter out(&lines);
  out.Compare("versions:", int{impl_abstract.version_count},
              int{model.version_count});
  const int common =
      std::min<int>(impl_abstract.version_count, model.version_count);
  for (int k = 0; k < common; ++k)
    DiffVersion(config, impl_abstract.versions[k], model.versions[k], &out);
  for (int s = 0; s < config.bounds.shards; ++s) {
    const std::string shard = "shard " + std::to_string(s);
    out.Compare(shard + ": flushed", int{impl_abstract.flushed[s]},
                int{model.flushed[s]});
    out.CompareSets(shard + ": retired generations (bit g-1)",
                    impl_abstract.retired[s], model.retired[s]);
  }
  out.CompareSets("pending retirements (row bits)", impl_abstract.pending,
                  model.pending);
  out.Compare("in-flight transactions:", int{impl_abstract.inflight_count},
              int{model.inflight_count});
  if (impl_abstract.inflight_count == model.inflight_count) {
    for (int t = 0; t < model.inflight_count; ++t) {
      out.Compare("in-flight " + std::to_string(t) + ":",
                  TxnLabel(impl_abstract.inflight[t]),
                  TxnLabel(Visible(config, model, model.inflight[t])));
    }
  }
  out.Compare("commits after Init (versions of the lineage):",
              int{impl_abstract.committed}, int{model.committed});
  out.Compare("next fragment id (max_fragment_id + 1):",
              int{impl_abstract.next_fragment}, int{model.next_fragment});
  out.Compare("activated (a version this protocol committed has the bit):",
              impl_abstract.activated, model.activated);
  out.Compare("foreign compactor committed (writer_version):",
              impl_abstract.foreign_legacy, model.foreign_legacy);
  DiffRows(impl_abstract, model, &lines);
  return lines;
}

std::optional<Finding> CheckRefinement(const model::Config& config,
                                       const impl::World& world,
                                       const State& model,
                                       std::string* impl_dump) {
  const std::shared_ptr<TableEntry> table = CachedTable(config, world);
  const std::shared_ptr<WalEntry> wal = CachedWal(world);
  const Status decoded =
      !table->status.ok() ? table->status : wal->wal.status();
  if (!decoded.ok()) {
    return Finding{
        std::string(kImplementationMatchesModel),
        "cannot decode the implementation's state: " + decoded.ToString()};
  }
  Result<State> abstract = AbstractFrom(config, world, table.get(), *wal->wal);
  if (!abstract.ok()) {
    return Finding{std::string(kImplementationMatchesModel),
                   abstract.status().message()};
  }
  if (impl_dump != nullptr) *impl_dump = model::ToString(*abstract);
  const bool equal = PersistedEqual(config, *abstract, model);
  const std::optional<model::ReaderWatermarks>& reader =
      CachedImplReader(config, world, *abstract, table.get());
  std::optional<model::MissedRow> missed;
  if (const model::Invariant* broken =
          FirstBrokenOnImplementation(config, *abstract, reader, &missed)) {
    std::string detail = "broken on the implementation's persisted state";
    const std::vector<std::string> lines =
        equal ? std::vector<std::string>{} : Diff(config, *abstract, model);
    detail += lines.empty() ? " (which equals the model's)"
                            : "; it differs from the model:";
    for (const std::string& line : lines) detail += "\n  " + line;
    if (missed.has_value()) {
      // The reader decided: where the states agree, its answers that differ
      // from the model's say why.
      detail += "\n  read through the implementation's reader: " +
                MissedRowLine(config, *abstract, *reader, *missed);
      if (lines.empty()) {
        for (const std::string& line :
             ReadSideLines(config, world, model, table.get()))
          detail += "\n  " + line;
      }
    }
    return Finding{std::string(broken->name), detail};
  }
  if (!table->bytes_checked) {
    table->zero_entries = CheckZeroEntries(config, *table->versions.back());
    table->system_uuid_kept = SystemIndexUuidKept(table->versions);
    table->system_uuid_lines = SystemIndexUuidDiff(
        table->versions, table->system_uuid_kept, *abstract);
    table->bytes_checked = true;
  }
  if (table->zero_entries.has_value()) return table->zero_entries;
  std::vector<std::string> lines;
  if (!equal) lines = Diff(config, *abstract, model);
  // The in-flight transactions' contents, line by line (what Txn does not
  // hold: a fenced data pass's property, the merged rows).
  for (std::string& line : InflightDiff(config, world, model))
    lines.push_back(std::move(line));
  if (lines.empty()) {
    lines = equal ? table->system_uuid_lines
                  : SystemIndexUuidDiff(table->versions,
                                        table->system_uuid_kept, model);
  }
  if (lines.empty()) lines = ReadSideLines(config, world, model, table.get());
  if (lines.empty()) return std::nullopt;
  std::string detail = "the implementation's state differs from the model's:";
  for (const std::string& line : lines) detail += "\n  " + line;
  return Finding{std::string(kImplementationMatchesModel), detail};
}

std::optional<Finding> CheckRefinement(const model::Config& config,
                                       const impl::World& world,
                                       const State& model) {
  return CheckRefinement(config, world, model, nullptr);
}

Result<model::State> AbstractVersions(
    const model::Config& config,
    const std::vector<const impl::TableVersion*>& lineage, std::size_t own,
    const impl::RowsView& rows, const impl::WalState& wal,
    const std::set<std::pair<uint32_t, uint64_t>>& pending,
    const ShardNumbers& shards) {
  MEMWAL_ASSERT(own <= lineage.size());
  TableEntry entry;
  for (std::size_t k = lineage.size() - own; k < lineage.size(); ++k) {
    // Not owned: the caller's versions outlive this call.
    entry.versions.push_back(VersionPtr(VersionPtr(), lineage[k]));
    entry.retained.push_back(lineage[k]->retained ? 1 : 0);
  }
  AbstractTable(config, lineage, shards, rows, nullptr, &entry);
  return AbstractFields(config, entry, wal, pending);
}

}  // namespace memwal::checker::lockstep
