// The compaction-progress rule (R35 step 2: the stale-generation rule and the
// raise; Lance's update_mem_wal_index_compacted_sstables [P §3]) of the
// implementation (impl::UpdateCompacted) against the model's
// (model::RecordCompacted), on inputs the bounded search does not produce:
// recorded lists in any shard order, explicit zero entries next to missing
// ones, a proposed generation equal to, below or far above the recorded one,
// every shard at a different generation, and a table without
// __lance_mem_wal.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <string>
#include <vector>

#include "impl/build.h"
#include "impl/format.h"
#include "impl/table.h"
#include "model/rules.h"
#include "model/state.h"

namespace memwal {
namespace {

std::string ShardUuid(int shard) {
  return std::string(15, '\0') + static_cast<char>('a' + shard);
}

// The recorded generations as a list: every shard in a random order, a zero
// written as an explicit entry or left out at random.
impl::ShardGenerations RandomRecorded(const model::Version& head) {
  impl::ShardGenerations list;
  for (int s = 0; s < model::kShardsMax; ++s) {
    if (head.compacted[s] == 0 && *rc::gen::arbitrary<bool>()) continue;
    list.emplace_back(ShardUuid(s), head.compacted[s]);
  }
  const std::vector<std::size_t> order =
      *rc::gen::unique<std::vector<std::size_t>>(
          list.size(), rc::gen::inRange<std::size_t>(0, list.size()));
  impl::ShardGenerations shuffled;
  for (const std::size_t k : order) shuffled.push_back(list[k]);
  return shuffled;
}

// A section holding __lance_mem_wal with `recorded` as its progress.
impl::pb::IndexSection SectionWith(const impl::ShardGenerations& recorded) {
  impl::pb::IndexSection section;
  impl::pb::IndexMetadata* index = section.add_indices();
  index->set_name(std::string(impl::kMemWalIndexName));
  index->mutable_uuid()->set_uuid(std::string(16, '\x01'));
  index->set_dataset_version(1);
  impl::pb::MemWalIndexDetails details;
  impl::SetGenerations(recorded, details.mutable_compacted_sstables());
  impl::PackMemWalDetails(details, index);
  return section;
}

RC_GTEST_PROP(RuleFunctions,
              TheProgressRuleOfTheImplementationIsTheModelsOnAnyRecordedList,
              ()) {
  model::Version head;
  for (int s = 0; s < model::kShardsMax; ++s) {
    head.compacted[s] =
        *rc::gen::inRange<uint8_t>(0, model::kGenerationsMax + 1);
  }
  head.mem_wal_dropped =
      *rc::gen::weightedElement<bool>({{1, true}, {5, false}});
  model::Txn txn;
  txn.kind = model::OpKind::kRecordProgress;
  txn.shard = *rc::gen::inRange<uint8_t>(0, model::kShardsMax);
  // Any generation, the stale ones (at or below the recorded) included.
  txn.generation = *rc::gen::inRange<uint8_t>(1, model::kGenerationsMax + 1);

  model::Version next = head;
  const bool model_ok = model::RecordCompacted(txn, head, &next);

  const impl::ShardGenerations recorded = RandomRecorded(head);
  impl::pb::IndexSection section =
      head.mem_wal_dropped ? impl::pb::IndexSection{} : SectionWith(recorded);
  google::protobuf::RepeatedPtrField<impl::pb::CompactedSsTable> proposed;
  impl::pb::CompactedSsTable* entry = proposed.Add();
  entry->mutable_shard_id()->set_uuid(ShardUuid(txn.shard));
  entry->set_generation(txn.generation);
  const impl::UuidSource new_uuid = [] { return std::string(16, '\x02'); };
  impl::BuildInput input;
  input.new_uuid = &new_uuid;
  const Status impl_status =
      impl::UpdateCompacted(proposed, input, /*version=*/2, &section);

  RC_TAG(model_ok ? "raised" : "refused");
  RC_ASSERT(impl_status.ok() == model_ok);
  if (!model_ok) return;
  const impl::pb::IndexMetadata* index = impl::FindMemWalIndex(section);
  RC_ASSERT(index != nullptr);
  // The system index was rewritten: a fresh uuid, stamped with the version.
  RC_ASSERT(index->uuid().uuid() == std::string(16, '\x02'));
  RC_ASSERT(index->dataset_version() == 2u);
  const Result<impl::pb::MemWalIndexDetails> details =
      impl::UnpackMemWalDetails(*index);
  RC_ASSERT(details.ok());
  const impl::ShardGenerations after =
      impl::Generations(details->compacted_sstables());
  for (int s = 0; s < model::kShardsMax; ++s) {
    RC_ASSERT(impl::GenerationFor(after, ShardUuid(s)) ==
              static_cast<uint64_t>(next.compacted[s]));
  }
}

}  // namespace
}  // namespace memwal
