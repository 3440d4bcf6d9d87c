// The conflict table (spec R31-R32): the model's Judge (model/conflict.h)
// against the implementation's ClassifyConflict (impl/conflicts.h) on random
// pairs of a committed operation and a transaction to commit, RE2's way of
// checking a fast engine against a simple one.
//
// The inputs go past what the bounded search produces: Delete, Update and
// Rewrite on any set of fragments (the search writes one or two), index
// builds with any coverage and several names at once, progress on any shard
// and generation on either side (the search's R32 checks meet only the
// generations its commits reach). The implementation sees each operation as
// the pb::Transaction Lance would write for it, shard `s` named "shard-s" and
// index `i` named "index-i".
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <set>
#include <string>

#include "impl/bitmap.h"
#include "impl/conflicts.h"
#include "impl/format.h"
#include "model/conflict.h"
#include "model/state.h"

namespace memwal {
namespace {

using model::LanceOp;
using model::OpKind;

constexpr int kFragments = model::kFragmentsMax;

std::string ShardName(int shard) { return "shard-" + std::to_string(shard); }
std::string IndexName(int index) { return "index-" + std::to_string(index); }

impl::Coverage CoverageOf(model::FragmentSet set) {
  std::set<uint64_t> ids;
  for (int f = 0; f < kFragments; ++f) {
    if ((set >> f) & 1u) ids.insert(static_cast<uint64_t>(f));
  }
  return ids;
}

// One side of the pair, in the terms both layers share.
struct Side {
  LanceOp op = LanceOp::kAppend;
  bool compaction = false;  // an Update that carries progress (R35's marker)
  model::FragmentSet fragments = 0;
  model::FragmentSet covers = 0;  // CreateIndex: its new segment's coverage
  int index = 0;                  // CreateIndex: the name
  int second = -1;                // CreateIndex: a second name (R61), or -1
  int shard = 0;
  int generation = 0;  // progress carried; 0: none
};

Side RandomSide(bool committed) {
  Side side;
  side.op = committed
                ? *rc::gen::element(
                      LanceOp::kAppend, LanceOp::kDelete, LanceOp::kUpdate,
                      LanceOp::kRewrite, LanceOp::kCreateIndex,
                      LanceOp::kUpdateMemWalState, LanceOp::kRestore)
                : *rc::gen::element(LanceOp::kAppend, LanceOp::kDelete,
                                    LanceOp::kUpdate, LanceOp::kRewrite,
                                    LanceOp::kCreateIndex,
                                    LanceOp::kUpdateMemWalState);
  side.fragments =
      static_cast<model::FragmentSet>(*rc::gen::inRange(1, 1 << kFragments));
  side.covers =
      static_cast<model::FragmentSet>(*rc::gen::inRange(0, 1 << kFragments));
  side.index = *rc::gen::inRange(0, model::kIndexesMax);
  if (*rc::gen::arbitrary<bool>())
    side.second = *rc::gen::inRange(0, model::kIndexesMax);
  side.shard = *rc::gen::inRange(0, model::kShardsMax);
  side.generation = *rc::gen::inRange(0, model::kGenerationsMax + 2);
  side.compaction = side.op == LanceOp::kUpdate && side.generation > 0 &&
                    *rc::gen::arbitrary<bool>();
  if (side.op == LanceOp::kUpdate && !side.compaction) side.generation = 0;
  if (side.op != LanceOp::kUpdate && side.op != LanceOp::kUpdateMemWalState)
    side.generation = 0;
  return side;
}

uint8_t Names(const Side& side) {
  uint8_t names = static_cast<uint8_t>(1u << side.index);
  if (side.second >= 0) names |= static_cast<uint8_t>(1u << side.second);
  return names;
}

model::Op ModelOp(const Side& side) {
  model::Op op;
  switch (side.op) {
    case LanceOp::kAppend:
      op.kind = OpKind::kAppend;
      break;
    case LanceOp::kDelete:
      op.kind = OpKind::kDeleteFragment;
      break;
    case LanceOp::kUpdate:
      op.kind =
          side.compaction ? OpKind::kCompactSsTable : OpKind::kUpdateColumns;
      break;
    case LanceOp::kRewrite:
      op.kind = OpKind::kRewriteFragments;
      break;
    case LanceOp::kCreateIndex:
      op.kind = OpKind::kCreateIndex;
      break;
    case LanceOp::kUpdateMemWalState:
      op.kind = OpKind::kRecordProgress;
      break;
    default:
      op.kind = OpKind::kRestore;
      break;
  }
  const bool data = side.op == LanceOp::kDelete ||
                    side.op == LanceOp::kUpdate || side.op == LanceOp::kRewrite;
  op.fragments = data ? side.fragments : 0;
  if (side.op == LanceOp::kCreateIndex) {
    op.new_covers = side.covers;
    op.index = static_cast<uint8_t>(
        side.index | (side.second >= 0 ? (side.second + 1) << 4 : 0));
  }
  op.progress_shard = static_cast<uint8_t>(side.shard);
  op.progress_generation = static_cast<uint8_t>(side.generation);
  return op;
}

model::Proposal ModelProposal(const Side& side) {
  const model::Op op = ModelOp(side);
  return model::Proposal{.op = side.op,
                         .fragments = op.fragments,
                         .new_covers = op.new_covers,
                         .index = static_cast<uint8_t>(side.index),
                         .names = Names(side),
                         .progress_shard = op.progress_shard,
                         .progress_generation = op.progress_generation};
}

template <typename List>
void AddProgress(const Side& side, List* list) {
  if (side.generation == 0) return;
  impl::pb::CompactedSsTable* entry = list->Add();
  entry->mutable_shard_id()->set_uuid(ShardName(side.shard));
  entry->set_generation(static_cast<uint64_t>(side.generation));
}

impl::pb::Transaction ImplTransaction(const Side& side) {
  impl::pb::Transaction t;
  const std::set<uint64_t> fragments = *CoverageOf(side.fragments);
  t.set_read_version(1);
  switch (side.op) {
    case LanceOp::kAppend:
      t.mutable_append();
      break;
    case LanceOp::kDelete:
      for (const uint64_t id : fragments)
        t.mutable_delete_()->add_deleted_fragment_ids(id);
      break;
    case LanceOp::kUpdate: {
      auto* update = t.mutable_update();
      for (const uint64_t id : fragments)
        update->add_updated_fragments()->set_id(id);
      AddProgress(side, update->mutable_compacted_sstables());
      break;
    }
    case LanceOp::kRewrite: {
      auto* group = t.mutable_rewrite()->add_groups();
      for (const uint64_t id : fragments)
        group->add_old_fragments()->set_id(id);
      break;
    }
    case LanceOp::kCreateIndex: {
      auto* op = t.mutable_create_index();
      impl::pb::IndexMetadata* index = op->add_new_indices();
      index->set_name(IndexName(side.index));
      index->mutable_uuid()->set_uuid("uuid-" + std::to_string(side.index));
      index->set_fragment_bitmap(
          impl::EncodeFragmentBitmap(CoverageOf(side.covers)));
      if (side.second >= 0) {
        op->add_mem_wal_index_catchup_advances()->set_index_name(
            IndexName(side.second));
      }
      break;
    }
    case LanceOp::kUpdateMemWalState:
      AddProgress(
          side, t.mutable_update_mem_wal_state()->mutable_compacted_sstables());
      break;
    default:
      t.mutable_restore()->set_version(1);
      break;
  }
  return t;
}

model::Conflict FromImpl(impl::ConflictClass conflict) {
  switch (conflict) {
    case impl::ConflictClass::kCompatible:
      return model::Conflict::kOk;
    case impl::ConflictClass::kRetryable:
      return model::Conflict::kRetryable;
    case impl::ConflictClass::kIncompatible:
      return model::Conflict::kIncompatible;
  }
  return model::Conflict::kOk;
}

std::string Describe(const Side& side) {
  return std::string(model::Name(side.op)) +
         " fragments=" + std::to_string(side.fragments) +
         " covers=" + std::to_string(side.covers) +
         " names=" + std::to_string(Names(side)) + " progress=(" +
         std::to_string(side.shard) + "," + std::to_string(side.generation) +
         ")";
}

RC_GTEST_PROP(RuleFunctions,
              TheConflictTableOfTheImplementationIsTheModelsOnAnyPair, ()) {
  const Side committed = RandomSide(/*committed=*/true);
  const Side mine = RandomSide(/*committed=*/false);
  model::Version committed_version;
  committed_version.op = ModelOp(committed);
  model::Proposal proposal = ModelProposal(mine);
  const model::Conflict want = model::Judge(committed_version, &proposal);
  impl::pb::Transaction self = ImplTransaction(mine);
  const Result<impl::ConflictClass> got =
      impl::ClassifyConflict(&self, ImplTransaction(committed));
  RC_ASSERT(got.ok());
  RC_LOG() << "committed " << Describe(committed) << ", mine " << Describe(mine)
           << "\n";
  RC_ASSERT(FromImpl(*got) == want);
}

}  // namespace
}  // namespace memwal
