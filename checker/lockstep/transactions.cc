// Lance transactions in the model's terms (checker/lockstep/transactions.h).
#include "checker/lockstep/transactions.h"

#include <optional>
#include <set>
#include <string_view>

#include "impl/bitmap.h"
#include "impl/format.h"
#include "impl/rows.h"

namespace memwal::checker::lockstep {
namespace {

using impl::pb::Transaction;
using model::Op;
using model::OpKind;
using model::Txn;

Status Unexpected(const std::string& what) {
  return Status::Corruption("a transaction no action writes: " + what);
}

bool IsSystem(const impl::pb::IndexMetadata& segment) {
  return segment.name() == impl::kMemWalIndexName;
}

template <typename List>
bool AnySystem(const List& list) {
  for (const auto& segment : list) {
    if (IsSystem(segment)) return true;
  }
  return false;
}

Result<model::FragmentSet> FragmentBit(uint64_t id) {
  if (id >= model::kFragmentsMax)
    return Status::FailedPrecondition(
        "the model cannot represent it: a transaction names fragment " +
        std::to_string(id));
  return static_cast<model::FragmentSet>(1u << id);
}

// The user index a CreateIndex works on: the name its segments, its repair
// property or its first advance carry (one name).
Result<int> UserIndexOf(const Transaction& t) {
  std::optional<int> index;
  auto take = [&](const std::string& name) -> Status {
    const std::optional<int> named = IndexOf(name);
    if (!named.has_value()) return Unexpected("a CreateIndex naming " + name);
    if (index.has_value() && *index != *named)
      return Unexpected("a CreateIndex naming two indexes");
    index = named;
    return Status::Ok();
  };
  const auto& op = t.create_index();
  for (const auto& segment : op.new_indices())
    MEMWAL_RETURN_IF_ERROR(take(segment.name()));
  for (const auto& segment : op.removed_indices())
    MEMWAL_RETURN_IF_ERROR(take(segment.name()));
  const auto property =
      t.transaction_properties().find(std::string(impl::kRepairIndexProperty));
  if (property != t.transaction_properties().end())
    MEMWAL_RETURN_IF_ERROR(take(property->second));
  if (!index.has_value() && op.mem_wal_index_catchup_advances_size() > 0)
    MEMWAL_RETURN_IF_ERROR(
        take(op.mem_wal_index_catchup_advances(0).index_name()));
  if (!index.has_value()) return Unexpected("a CreateIndex naming no index");
  return *index;
}

// The version numbered `number` at or before `at` in `lineage` (the nearest:
// a clone repeats its source head's number).
const impl::TableVersion* Numbered(
    const std::vector<const impl::TableVersion*>& lineage, std::size_t at,
    uint64_t number) {
  for (std::size_t k = at + 1; k-- > 0;) {
    if (lineage[k]->number == number) return lineage[k];
  }
  return nullptr;
}

// CreateIndex (R25) against OptimizeIndex (R26), both with a new segment:
// CreateIndex removes every segment the read version had for the index.
bool RemovesEveryReadSegment(const Transaction& t, int index,
                             const impl::TableVersion* read) {
  std::set<std::string> removed;
  for (const auto& segment : t.create_index().removed_indices())
    removed.insert(segment.uuid().uuid());
  if (read == nullptr) return removed.empty();
  const auto it = read->segments.find(static_cast<uint32_t>(index));
  const std::size_t count = it == read->segments.end() ? 0 : it->second.size();
  if (removed.size() != count) return false;
  if (count == 0) return true;
  for (const impl::SegmentView& segment : it->second) {
    if (removed.count(segment.uuid) == 0) return false;
  }
  return true;
}

// A user index op's kind (R25-R27).
OpKind UserIndexKind(const Transaction& t, int index,
                     const impl::TableVersion* read) {
  const auto& op = t.create_index();
  if (op.new_indices_size() > 0) {
    return RemovesEveryReadSegment(t, index, read) ? OpKind::kCreateIndex
                                                   : OpKind::kOptimizeIndex;
  }
  return op.removed_indices_size() > 0 ? OpKind::kDropIndex
                                       : OpKind::kOptimizeIndex;
}

// The second index an R61 other-index advance names, as Op::index's high
// nibble (1 + its number), or 0.
Result<uint8_t> SecondNameOf(const Transaction& t, int index) {
  const auto& advances = t.create_index().mem_wal_index_catchup_advances();
  if (advances.size() < 2) return uint8_t{0};
  if (advances.size() > 2) return Unexpected("three advances");
  const std::optional<int> other = IndexOf(advances[1].index_name());
  if (!other.has_value() || *other == index || *other > 14)
    return Unexpected("an advance for " + advances[1].index_name());
  return static_cast<uint8_t>(1 + *other);
}

template <typename List>
Status ProgressEntry(const List& list, const ShardNumbers& shards,
                     uint8_t* shard, uint8_t* generation) {
  if (list.size() != 1)
    return Unexpected(std::to_string(list.size()) + " progress entries");
  const int s = shards.Of(list[0].shard_id().uuid());
  if (s < 0) return Unexpected("progress on an unknown shard");
  if (list[0].generation() > 255)
    return Unexpected("progress generation " +
                      std::to_string(list[0].generation()));
  *shard = static_cast<uint8_t>(s);
  *generation = static_cast<uint8_t>(list[0].generation());
  return Status::Ok();
}

// The covers of the segment `uuid` as `version` published it.
Result<model::FragmentSet> PublishedCovers(const impl::TableVersion& version,
                                           const std::string& uuid) {
  for (const auto& [index, segments] : version.segments) {
    for (const impl::SegmentView& segment : segments) {
      if (segment.uuid != uuid) continue;
      model::FragmentSet set = 0;
      if (segment.covers.has_value()) {
        for (const uint64_t id : *segment.covers) {
          MEMWAL_ASSIGN_OR_RETURN(const model::FragmentSet bit,
                                  FragmentBit(id));
          set |= bit;
        }
      }
      return set;
    }
  }
  return model::FragmentSet{0};  // not published (a later prune emptied it)
}

Result<Op> IndexOpOf(const std::vector<const impl::TableVersion*>& lineage,
                     std::size_t at, const ShardNumbers& shards) {
  const impl::TableVersion& version = *lineage[at];
  const Transaction& t = *version.transaction;
  const auto& op = t.create_index();
  (void)shards;
  if (AnySystem(op.new_indices())) {
    if (op.new_indices_size() != 1)
      return Unexpected("a MemWAL install with a user segment");
    // R62's reset is another writer's install (its writer_version); this
    // protocol's re-install (R39) removes the old entry too, once rebased.
    if (version.writer != impl::kWriterVersion)
      return Op{.kind = OpKind::kResetMemWal, .index = model::kForeignIndex};
    // R39: published rebased when it read an older version than the one it
    // follows.
    const bool rebased = version.number > t.read_version() + 1;
    return Op{.kind = OpKind::kReinstallMemWal,
              .fragments = static_cast<model::FragmentSet>(rebased ? 1 : 0),
              .index = model::kForeignIndex};
  }
  if (AnySystem(op.removed_indices())) {
    if (op.removed_indices_size() != 1)
      return Unexpected("a MemWAL drop removing a user segment");
    return Op{.kind = OpKind::kDropMemWal, .index = model::kForeignIndex};
  }
  const bool names_nothing = op.new_indices_size() == 0 &&
                             op.removed_indices_size() == 0 &&
                             op.mem_wal_index_catchup_advances_size() == 0 &&
                             t.transaction_properties().count(
                                 std::string(impl::kRepairIndexProperty)) == 0;
  if (names_nothing)
    return Op{.kind = OpKind::kForeignHalfSet, .index = model::kForeignIndex};
  MEMWAL_ASSIGN_OR_RETURN(const int index, UserIndexOf(t));
  if (index > 15) return Unexpected("index idx_" + std::to_string(index));
  Op out;
  out.kind = UserIndexKind(t, index, Numbered(lineage, at, t.read_version()));
  MEMWAL_ASSIGN_OR_RETURN(const uint8_t second, SecondNameOf(t, index));
  out.index = static_cast<uint8_t>(index | (second << 4));
  if (op.new_indices_size() > 0) {
    MEMWAL_ASSIGN_OR_RETURN(
        out.new_covers,
        PublishedCovers(version, op.new_indices(0).uuid().uuid()));
  }
  return out;
}

// The fragments a version's transaction names, as the model's set.
template <typename Fragments>
Status AddFragments(const Fragments& fragments, Op* out) {
  for (const auto& fragment : fragments) {
    MEMWAL_ASSIGN_OR_RETURN(const model::FragmentSet bit,
                            FragmentBit(fragment.id()));
    out->fragments |= bit;
  }
  return Status::Ok();
}

// An Update version: UpdateColumns, or a compaction (ours or the foreign
// compactor's, by writer_version) with its progress entry.
Result<Op> UpdateOpOf(const impl::TableVersion& version,
                      const Transaction::Update& update,
                      const ShardNumbers& shards) {
  if (update.update_mode() == Transaction::Update::REWRITE_COLUMNS) {
    Op out{.kind = OpKind::kUpdateColumns};
    MEMWAL_RETURN_IF_ERROR(AddFragments(update.updated_fragments(), &out));
    if (update.fields_modified_size() != 1)
      return Unexpected("an UpdateColumns of " +
                        std::to_string(update.fields_modified_size()) +
                        " fields");
    out.index = static_cast<uint8_t>(update.fields_modified(0));
    return out;
  }
  const bool foreign = version.writer != impl::kWriterVersion;
  Op out{.kind =
             foreign ? OpKind::kForeignCompaction : OpKind::kCompactSsTable};
  if (update.compacted_sstables_size() > 0) {
    MEMWAL_RETURN_IF_ERROR(ProgressEntry(update.compacted_sstables(), shards,
                                         &out.progress_shard,
                                         &out.progress_generation));
  }
  return out;
}

// An UpdateMemWalState version: Activate, or RecordProgress of one entry.
Result<Op> MemWalStateOpOf(const Transaction::UpdateMemWalState& op,
                           const ShardNumbers& shards) {
  if (op.require_index_catchup()) return Op{.kind = OpKind::kActivate};
  Op out{.kind = OpKind::kRecordProgress};
  MEMWAL_RETURN_IF_ERROR(ProgressEntry(op.compacted_sstables(), shards,
                                       &out.progress_shard,
                                       &out.progress_generation));
  return out;
}

Result<Op> OpOf(const model::Config& config,
                const std::vector<const impl::TableVersion*>& lineage,
                std::size_t at, const ShardNumbers& shards) {
  (void)config;
  const impl::TableVersion& version = *lineage[at];
  MEMWAL_ASSERT(version.transaction != nullptr);
  const Transaction& t = *version.transaction;
  switch (t.operation_case()) {
    case Transaction::kOverwrite:
    case Transaction::OPERATION_NOT_SET:
      return Op{.kind = OpKind::kInit};
    case Transaction::kAppend:
      return Op{.kind = OpKind::kAppend};
    case Transaction::kDelete: {
      Op out{.kind = OpKind::kDeleteFragment};
      for (const uint64_t id : t.delete_().deleted_fragment_ids()) {
        MEMWAL_ASSIGN_OR_RETURN(const model::FragmentSet bit, FragmentBit(id));
        out.fragments |= bit;
      }
      return out;
    }
    case Transaction::kUpdate:
      return UpdateOpOf(version, t.update(), shards);
    case Transaction::kRewrite: {
      Op out{.kind = OpKind::kRewriteFragments};
      for (const auto& group : t.rewrite().groups())
        MEMWAL_RETURN_IF_ERROR(AddFragments(group.old_fragments(), &out));
      return out;
    }
    case Transaction::kCreateIndex:
      return IndexOpOf(lineage, at, shards);
    case Transaction::kUpdateMemWalState:
      return MemWalStateOpOf(t.update_mem_wal_state(), shards);
    case Transaction::kRestore:
      return Op{.kind = OpKind::kRestore};
    default:
      return Unexpected("operation " + std::to_string(t.operation_case()));
  }
}

}  // namespace

int ShardNumbers::Of(const std::string& uuid) const {
  for (std::size_t s = 0; s < uuids.size(); ++s) {
    if (uuids[s] == uuid) return static_cast<int>(s);
  }
  return -1;
}

Result<Op> OpOfVersion(const model::Config& config,
                       const std::vector<const impl::TableVersion*>& lineage,
                       std::size_t at, const ShardNumbers& shards,
                       const Op* previous) {
  MEMWAL_ASSERT(at < lineage.size() && (at == 0) == (previous == nullptr));
  if (lineage[at]->transaction->operation_case() == Transaction::kClone) {
    // R37: the clone's version is the head it copied, op included.
    if (previous == nullptr) return Unexpected("a clone without its source");
    return *previous;
  }
  return OpOf(config, lineage, at, shards);
}

Result<std::vector<Op>> OpsOf(
    const model::Config& config,
    const std::vector<const impl::TableVersion*>& lineage,
    const ShardNumbers& shards) {
  std::vector<Op> ops;
  ops.reserve(lineage.size());
  for (std::size_t k = 0; k < lineage.size(); ++k) {
    MEMWAL_ASSIGN_OR_RETURN(Op op, OpOfVersion(config, lineage, k, shards,
                                               k == 0 ? nullptr : &ops.back()));
    ops.push_back(op);
  }
  return ops;
}

namespace {

// The generation a merge-insert's new fragment holds (one row of `shard`).
Result<uint8_t> MergedGeneration(const impl::World& world,
                                 const Transaction::Update& update,
                                 const ShardNumbers& shards, uint8_t* shard) {
  if (update.new_fragments_size() != 1)
    return Unexpected("a merge-insert adding " +
                      std::to_string(update.new_fragments_size()) +
                      " fragments");
  static const impl::pb::Manifest kNoBasePaths;
  MEMWAL_ASSIGN_OR_RETURN(
      const impl::FragmentRows rows,
      impl::ReadFragmentRows(world.store(), world.table_root(), kNoBasePaths,
                             update.new_fragments(0)));
  if (rows.rows->size() != 1 || !(*rows.rows)[0].memwal())
    return Unexpected(
        "a merge-insert whose new fragment is not one MemWAL row");
  const int s = shards.Of((*rows.rows)[0].shard);
  if (s < 0 || (*rows.rows)[0].generation > 255)
    return Unexpected("a merge-insert of an unknown SSTable");
  *shard = static_cast<uint8_t>(s);
  return static_cast<uint8_t>((*rows.rows)[0].generation);
}

// Txn::advance from an OptimizeIndex's advances (R61), against the claim the
// protocol's own repair makes on `read` (every shard with progress at its
// compacted generation).
Result<uint8_t> AdvanceOf(const Transaction& t, const impl::TableVersion* read,
                          const ShardNumbers& shards) {
  const auto& advances = t.create_index().mem_wal_index_catchup_advances();
  if (advances.size() == 2) return uint8_t{1 + 0};  // other-index
  if (advances.size() != 1 || read == nullptr) return uint8_t{0};
  std::map<int, uint64_t> claims;
  for (const auto& claim : advances[0].caught_up_generations())
    claims[shards.Of(claim.shard_id().uuid())] = claim.generation();
  std::map<int, uint64_t> own;
  for (const auto& [shard, generation] : read->compacted) {
    if (generation > 0) own[static_cast<int>(shard)] = generation;
  }
  if (claims == own) return uint8_t{0};
  bool oldest = claims.size() == own.size();
  for (const auto& [shard, generation] : claims)
    oldest = oldest && generation == 1 && own.count(shard) != 0;
  if (oldest) return uint8_t{1 + 1};
  // first-shard keeps shard 0's claim only: none when shard 0 has no
  // progress yet (impl/world_env.cc BeginCallerAdvance).
  std::map<int, uint64_t> first_only;
  if (const auto first = own.find(0); first != own.end())
    first_only[0] = first->second;
  if (claims == first_only) return uint8_t{1 + 2};
  return Unexpected("an advance claiming what no offer claims");
}

// A staged Delete: one fragment within the model's.
Status DeleteTxn(const Transaction& t, Txn* txn) {
  txn->kind = OpKind::kDeleteFragment;
  if (t.delete_().deleted_fragment_ids_size() != 1)
    return Unexpected("a delete of several fragments");
  if (t.delete_().deleted_fragment_ids(0) >= model::kFragmentsMax)
    return Unexpected("a delete of a fragment past the model's");
  txn->fragment = static_cast<uint8_t>(t.delete_().deleted_fragment_ids(0));
  return Status::Ok();
}

// A staged Update: UpdateColumns (REWRITE_COLUMNS of one fragment and field)
// or CompactSsTable (the merged generation, the marker).
Status UpdateTxn(const impl::World& world, const Transaction& t,
                 const ShardNumbers& shards, Txn* txn) {
  const auto& update = t.update();
  if (update.update_mode() == Transaction::Update::REWRITE_COLUMNS) {
    txn->kind = OpKind::kUpdateColumns;
    if (update.updated_fragments_size() != 1 ||
        update.fields_modified_size() != 1 ||
        update.updated_fragments(0).id() >= model::kFragmentsMax)
      return Unexpected("an UpdateColumns not of one fragment and field");
    txn->fragment = static_cast<uint8_t>(update.updated_fragments(0).id());
    txn->index = static_cast<uint8_t>(update.fields_modified(0));
    return Status::Ok();
  }
  txn->kind = OpKind::kCompactSsTable;
  txn->marker = update.compacted_sstables_size() > 0;
  MEMWAL_ASSIGN_OR_RETURN(txn->generation,
                          MergedGeneration(world, update, shards, &txn->shard));
  return Status::Ok();
}

// A staged Rewrite: one group of two fragments within the model's.
Status RewriteTxn(const Transaction& t, Txn* txn) {
  txn->kind = OpKind::kRewriteFragments;
  const auto& groups = t.rewrite().groups();
  if (groups.size() != 1 || groups[0].old_fragments_size() != 2 ||
      groups[0].old_fragments(0).id() >= model::kFragmentsMax ||
      groups[0].old_fragments(1).id() >= model::kFragmentsMax)
    return Unexpected("a rewrite that is not of two fragments");
  txn->fragment = static_cast<uint8_t>(groups[0].old_fragments(0).id());
  txn->second_fragment = static_cast<uint8_t>(groups[0].old_fragments(1).id());
  return Status::Ok();
}

// The new segment of a staged CreateIndex: its uuid's number and coverage.
Status NewSegmentOf(const Transaction::CreateIndex& op,
                    const UuidNumberer& number, Txn* txn) {
  if (op.new_indices_size() > 1)
    return Unexpected("a CreateIndex adding several segments");
  if (op.new_indices_size() == 0) return Status::Ok();
  MEMWAL_ASSIGN_OR_RETURN(txn->segment.uuid,
                          number(op.new_indices(0).uuid().uuid()));
  MEMWAL_ASSIGN_OR_RETURN(
      const impl::Coverage covers,
      impl::DecodeFragmentBitmap(op.new_indices(0).fragment_bitmap()));
  if (!covers.has_value())
    return Unexpected("a new segment without a fragment bitmap");
  for (const uint64_t id : *covers) {
    MEMWAL_ASSIGN_OR_RETURN(const model::FragmentSet bit, FragmentBit(id));
    txn->segment.covers |= bit;
  }
  return Status::Ok();
}

// A staged CreateIndex: a MemWAL re-install, or a user index's create,
// optimize (the removed segment, the advance offer) or drop.
Status CreateIndexTxn(const model::Config& config, const Transaction& t,
                      const impl::TableVersion* read,
                      const ShardNumbers& shards, const UuidNumberer& number,
                      Txn* txn) {
  const auto& op = t.create_index();
  if (AnySystem(op.new_indices())) {
    txn->kind = OpKind::kReinstallMemWal;
    if (op.new_indices_size() != 1 || op.removed_indices_size() != 0)
      return Unexpected("a staged MemWAL install that removes");
    return Status::Ok();
  }
  MEMWAL_ASSIGN_OR_RETURN(const int index, UserIndexOf(t));
  if (index >= config.bounds.indexes)
    return Unexpected("index idx_" + std::to_string(index));
  txn->index = static_cast<uint8_t>(index);
  txn->kind = UserIndexKind(t, index, read);
  if (txn->kind == OpKind::kOptimizeIndex) {
    if (op.removed_indices_size() > 1)
      return Unexpected("an optimize removing several segments");
    if (op.removed_indices_size() == 1) {
      MEMWAL_ASSIGN_OR_RETURN(txn->removed_uuid,
                              number(op.removed_indices(0).uuid().uuid()));
    }
    MEMWAL_ASSIGN_OR_RETURN(txn->advance, AdvanceOf(t, read, shards));
  }
  return NewSegmentOf(op, number, txn);
}

// A staged UpdateMemWalState: Activate, or RecordProgress of one entry.
Status MemWalStateTxn(const Transaction& t, const ShardNumbers& shards,
                      Txn* txn) {
  const auto& op = t.update_mem_wal_state();
  if (op.require_index_catchup()) {
    txn->kind = OpKind::kActivate;
    return Status::Ok();
  }
  txn->kind = OpKind::kRecordProgress;
  return ProgressEntry(op.compacted_sstables(), shards, &txn->shard,
                       &txn->generation);
}

}  // namespace

Result<Txn> TxnOf(const model::Config& config, const impl::World& world,
                  const Transaction& t,
                  const std::vector<const impl::TableVersion*>& versions,
                  const ShardNumbers& shards, const UuidNumberer& number) {
  Txn txn;
  if (t.read_version() > 255)
    return Unexpected("read version " + std::to_string(t.read_version()));
  txn.read_version = static_cast<uint8_t>(t.read_version());
  const impl::TableVersion* read =
      versions.empty()
          ? nullptr
          : Numbered(versions, versions.size() - 1, t.read_version());
  switch (t.operation_case()) {
    case Transaction::kAppend:
      txn.kind = OpKind::kAppend;
      return txn;
    case Transaction::kDelete:
      MEMWAL_RETURN_IF_ERROR(DeleteTxn(t, &txn));
      return txn;
    case Transaction::kUpdate:
      MEMWAL_RETURN_IF_ERROR(UpdateTxn(world, t, shards, &txn));
      return txn;
    case Transaction::kRewrite:
      MEMWAL_RETURN_IF_ERROR(RewriteTxn(t, &txn));
      return txn;
    case Transaction::kCreateIndex:
      MEMWAL_RETURN_IF_ERROR(
          CreateIndexTxn(config, t, read, shards, number, &txn));
      return txn;
    case Transaction::kUpdateMemWalState:
      MEMWAL_RETURN_IF_ERROR(MemWalStateTxn(t, shards, &txn));
      return txn;
    default:
      return Unexpected("a staged operation " +
                        std::to_string(t.operation_case()));
  }
}

uint8_t VisibleAdvance(const model::Config& config, const model::Version& read,
                       const model::Txn& txn) {
  if (txn.kind != OpKind::kOptimizeIndex || txn.advance == 0) return 0;
  const int offer = txn.advance - 1;
  bool differs = offer == 0;  // other-index: a second advance
  for (int s = 0; s < config.bounds.shards; ++s) {
    const int generation = read.compacted[s];
    if (generation == 0) continue;
    if (offer == 1 && generation != 1) differs = true;  // oldest
    if (offer == 2 && s != 0) differs = true;           // first-shard
  }
  return differs ? txn.advance : 0;
}

// "idx_3" -> 3 (transactions.h).
std::optional<int> IndexOf(const std::string& name) {
  if (name.rfind("idx_", 0) != 0 || name.size() == 4 || name.size() > 7)
    return std::nullopt;
  int value = 0;
  for (std::size_t k = 4; k < name.size(); ++k) {
    if (name[k] < '0' || name[k] > '9') return std::nullopt;
    value = value * 10 + (name[k] - '0');
  }
  return value;
}

}  // namespace memwal::checker::lockstep
