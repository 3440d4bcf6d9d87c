// In-flight transactions compared by content (checker/lockstep/inflight.h).
#include "checker/lockstep/inflight.h"

#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "checker/lockstep/refinement.h"
#include "checker/lockstep/transactions.h"
#include "impl/bitmap.h"
#include "impl/format.h"
#include "impl/rows.h"

namespace memwal::checker::lockstep {
namespace {

using model::LanceOp;
using model::Txn;

std::string_view ClassName(LanceOp op) { return model::Name(op); }

// The Lance class of an implementation transaction.
std::optional<LanceOp> ClassOf(const impl::pb::Transaction& t) {
  using T = impl::pb::Transaction;
  switch (t.operation_case()) {
    case T::kAppend:
      return LanceOp::kAppend;
    case T::kDelete:
      return LanceOp::kDelete;
    case T::kUpdate:
      return LanceOp::kUpdate;
    case T::kRewrite:
      return LanceOp::kRewrite;
    case T::kCreateIndex:
      return LanceOp::kCreateIndex;
    case T::kUpdateMemWalState:
      return LanceOp::kUpdateMemWalState;
    case T::kRestore:
      return LanceOp::kRestore;
    default:
      return std::nullopt;
  }
}

int ShardOf(const impl::World& world, const model::Config& config,
            const std::string& uuid) {
  for (int s = 0; s < config.bounds.shards; ++s) {
    if (world.shard_uuid(static_cast<uint32_t>(s)) == uuid) return s;
  }
  return -1;
}

// (The "in-flight N: " prefix is built only for a line: this runs for every
// in-flight transaction of every step.)
class Lines {
 public:
  Lines(std::vector<std::string>* out, int slot) : out_(out), slot_(slot) {}
  void Compare(std::string_view what, int64_t impl, int64_t model) {
    if (impl == model) return;
    out_->push_back(Prefix().append(what) + " " + std::to_string(impl) +
                    " (impl) vs " + std::to_string(model) + " (model)");
  }
  void Say(std::string_view line) { out_->push_back(Prefix().append(line)); }

 private:
  std::string Prefix() const {
    return "in-flight " + std::to_string(slot_) + ": ";
  }
  std::vector<std::string>* out_;
  int slot_;
};

// The compacted_sstables entry (shard, generation) of `list`, if exactly one.
template <typename List>
void CompareEntry(const impl::World& world, const model::Config& config,
                  const List& list, const Txn& txn, Lines* out) {
  if (list.size() != 1) {
    out->Compare("compacted_sstables entries", list.size(), 1);
    return;
  }
  out->Compare("shard", ShardOf(world, config, list[0].shard_id().uuid()),
               txn.shard);
  out->Compare("generation", static_cast<int64_t>(list[0].generation()),
               txn.generation);
}

// The merge-insert's rows (its new fragment's data file) are the row (s,g)
// of the generation the model's transaction merges, marker or not.
void CompareMergedRows(const impl::World& world, const model::Config& config,
                       const impl::pb::Transaction::Update& update,
                       const Txn& txn, Lines* out) {
  if (update.new_fragments_size() != 1) {
    out->Compare("new fragments", update.new_fragments_size(), 1);
    return;
  }
  static const impl::pb::Manifest kNoBasePaths;
  const Result<impl::FragmentRows> rows = impl::ReadFragmentRows(
      world.store(), world.table_root(), kNoBasePaths, update.new_fragments(0));
  if (!rows.ok()) {
    out->Say("the new fragment's rows: " + rows.status().ToString());
    return;
  }
  const bool one = rows->rows->size() == 1 && (*rows->rows)[0].memwal();
  const int shard = one ? ShardOf(world, config, (*rows->rows)[0].shard) : -1;
  if (!one || shard != txn.shard ||
      (*rows->rows)[0].generation != txn.generation) {
    std::string held = "{";
    for (const impl::RowKey& row : *rows->rows) {
      if (held.size() > 1) held.append(",");
      if (!row.memwal()) {
        held.append("base");
        continue;
      }
      held.append("(");
      held.append(std::to_string(ShardOf(world, config, row.shard)));
      held.append(",");
      held.append(std::to_string(row.generation));
      held.append(")");
    }
    out->Say("the new fragment holds " + held + "} (impl) vs {(" +
             std::to_string(txn.shard) + "," + std::to_string(txn.generation) +
             ")} (model)");
  }
}

void CompareCompaction(const impl::World& world, const model::Config& config,
                       const impl::pb::Transaction& t, const Txn& txn,
                       Lines* out) {
  const auto& update = t.update();
  const bool columns =
      update.update_mode() == impl::pb::Transaction::Update::REWRITE_COLUMNS;
  out->Compare("rewrites columns", columns,
               txn.kind == model::OpKind::kUpdateColumns);
  if (txn.kind == model::OpKind::kUpdateColumns) {
    if (update.updated_fragments_size() != 1 ||
        update.fields_modified_size() != 1) {
      out->Say("an UpdateColumns transaction that updates " +
               std::to_string(update.updated_fragments_size()) +
               " fragments and " +
               std::to_string(update.fields_modified_size()) + " fields");
      return;
    }
    out->Compare("updated fragment",
                 static_cast<int64_t>(update.updated_fragments(0).id()),
                 txn.fragment);
    out->Compare("modified field", update.fields_modified(0), txn.index);
    return;
  }
  out->Compare("marker", update.compacted_sstables_size() > 0, txn.marker);
  CompareMergedRows(world, config, update, txn, out);
  if (txn.marker) {
    CompareEntry(world, config, update.compacted_sstables(), txn, out);
    return;
  }
  // The generation a variant's data pass names (impl::kMergesPropertyPrefix:
  // R65's fence, ...), in key order.
  const std::map<std::string, std::string> properties(
      t.transaction_properties().begin(), t.transaction_properties().end());
  const std::string expected = impl::UuidHex(world.shard_uuid(txn.shard)) +
                               ":" + std::to_string(txn.generation);
  for (const auto& [key, value] : properties) {
    if (key.starts_with(impl::kMergesPropertyPrefix) && value != expected)
      out->Say("data pass names " + value + " in " + key + " (impl) vs " +
               expected + " (model)");
  }
}

void CompareIndexOp(const model::Config& config, const impl::pb::Transaction& t,
                    const Txn& txn, Lines* out) {
  const auto& op = t.create_index();
  if (model::IsForeignOp(txn.kind)) return;
  if (model::InstallsMemWal(txn.kind)) {
    // R39: the install's one new segment is the system index; the model keeps
    // its details in the transaction, not as a segment.
    const bool one_system = op.new_indices_size() == 1 &&
                            op.new_indices(0).name() == impl::kMemWalIndexName;
    if (!one_system)
      out->Say(
          "a MemWAL install whose new segment is not "
          "the one __lance_mem_wal");
    return;
  }
  std::optional<int> index;
  // By pointer: a braced list of the fields would copy both.
  for (const auto* list : {&op.new_indices(), &op.removed_indices()}) {
    for (const auto& segment : *list) {
      const std::optional<int> named = IndexOf(segment.name());
      if (!named.has_value()) continue;
      if (index.has_value() && *index != *named) out->Say("names two indexes");
      index = named;
    }
  }
  if (index.has_value()) out->Compare("index", *index, txn.index);
  const bool has_new = op.new_indices_size() > 0;
  out->Compare("new segments", op.new_indices_size(),
               txn.segment.uuid != 0 ? 1 : 0);
  if (has_new && txn.segment.uuid != 0) {
    Result<impl::Coverage> covers =
        impl::DecodeFragmentBitmap(op.new_indices(0).fragment_bitmap());
    uint64_t bits = 0;
    if (covers.ok() && covers->has_value()) {
      for (const uint64_t f : **covers) bits |= uint64_t{1} << (f & 63);
    } else {
      out->Say("the new segment has no readable fragment bitmap");
    }
    if (bits != txn.segment.covers)
      out->Say("new segment covers " + FormatSet(bits) + " (impl) vs " +
               FormatSet(txn.segment.covers) + " (model)");
  }
  (void)config;
  // The model removes one read segment (OptimizeIndex's replacement) or
  // every one (CreateIndex, DropIndex); the implementation lists them.
  if (txn.kind == model::OpKind::kOptimizeIndex)
    out->Compare("removed segments", op.removed_indices_size(),
                 txn.removed_uuid != 0 ? 1 : 0);
  if (txn.kind == model::OpKind::kDropIndex && op.removed_indices_size() == 0)
    out->Say("a DropIndex that removes no segment");
}

void CompareOne(const model::Config& config, const impl::World& world, int slot,
                const impl::pb::Transaction& t, const Txn& txn,
                std::vector<std::string>* lines) {
  Lines out(lines, slot);
  out.Compare("read version", static_cast<int64_t>(t.read_version()),
              txn.read_version);
  const std::optional<LanceOp> impl_class = ClassOf(t);
  const LanceOp model_class = model::Classify(txn.kind);
  if (!impl_class.has_value() || *impl_class != model_class) {
    out.Say("operation " +
            std::string(impl_class ? ClassName(*impl_class) : "none") +
            " (impl) vs " + std::string(ClassName(model_class)) + " (model " +
            std::string(model::Name(txn.kind)) + ")");
    return;
  }
  switch (model_class) {
    case LanceOp::kDelete:
      if (t.delete_().deleted_fragment_ids_size() != 1) {
        out.Compare("deleted fragments",
                    t.delete_().deleted_fragment_ids_size(), 1);
      } else {
        out.Compare("deleted fragment",
                    static_cast<int64_t>(t.delete_().deleted_fragment_ids(0)),
                    txn.fragment);
      }
      break;
    case LanceOp::kUpdate:
      CompareCompaction(world, config, t, txn, &out);
      break;
    case LanceOp::kRewrite: {
      const auto& groups = t.rewrite().groups();
      if (groups.size() != 1 || groups[0].old_fragments_size() != 2) {
        out.Say("a rewrite that is not of two fragments");
        break;
      }
      out.Compare("first rewritten fragment",
                  static_cast<int64_t>(groups[0].old_fragments(0).id()),
                  txn.fragment);
      out.Compare("second rewritten fragment",
                  static_cast<int64_t>(groups[0].old_fragments(1).id()),
                  txn.second_fragment);
      break;
    }
    case LanceOp::kCreateIndex:
      CompareIndexOp(config, t, txn, &out);
      break;
    case LanceOp::kUpdateMemWalState: {
      const auto& op = t.update_mem_wal_state();
      out.Compare("activates", op.require_index_catchup(),
                  txn.kind == model::OpKind::kActivate);
      if (txn.kind == model::OpKind::kRecordProgress)
        CompareEntry(world, config, op.compacted_sstables(), txn, &out);
      break;
    }
    default:
      break;
  }
}

}  // namespace

std::vector<std::string> InflightDiff(const model::Config& config,
                                      const impl::World& world,
                                      const model::State& model) {
  std::vector<std::string> lines;
  const std::vector<std::shared_ptr<const impl::pb::Transaction>>& inflight =
      world.inflight();
  if (inflight.size() != model.inflight_count) {
    lines.push_back(
        "in-flight transactions: " + std::to_string(inflight.size()) +
        " (impl) vs " + std::to_string(model.inflight_count) + " (model)");
    return lines;
  }
  for (int k = 0; k < model.inflight_count; ++k)
    CompareOne(config, world, k, *inflight[static_cast<std::size_t>(k)],
               model.inflight[k], &lines);
  return lines;
}

}  // namespace memwal::checker::lockstep
