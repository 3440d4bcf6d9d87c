// Planted differences (issue 18): for each field lockstep compares beyond the
// versions' abstraction (refusals, in-flight contents, the operation kind of
// the transaction file, zero-valued progress entries, the system index's
// uuid, the rows a fragment's data holds, deleted rows, the reader's
// watermarks), a deliberate difference is put into the implementation (its
// bytes in the store, an in-flight transaction, a World whose guard differs,
// or an implementation-only bug switch) and lockstep reports it with the
// right invariant and detail.
#include <gtest/gtest.h>

#include <functional>

#include "checker/lockstep/bytes_checks.h"
#include "checker/lockstep/lockstep.h"
#include "checker/lockstep/refinement.h"
#include "checker/lockstep/refusals.h"
#include "impl/bitmap.h"
#include "impl/format.h"
#include "impl/rows.h"
#include "impl/table.h"
#include "lockstep_steps.h"
#include "model/invariants.h"

namespace memwal::checker::lockstep {
namespace {

using testing::Mentions;
using testing::Ran;
LockstepSetup TinySetup(uint64_t seed) {
  return testing::TinySetup(0x9a17ed00, seed);
}
Ran RunActions(const LockstepSetup& setup,
               const std::vector<model::Action>& actions) {
  return testing::RunSteps(setup, actions);
}

// Rewrites the head's manifest file in the store (a planted difference in
// the persisted bytes).
void RewriteHead(impl::World* world,
                 const std::function<void(impl::ManifestFile*)>& plant) {
  const Result<std::vector<uint64_t>> versions = world->Versions();
  ASSERT_TRUE(versions.ok());
  const std::string path =
      world->table_root() + impl::VersionFileName(versions->back());
  const Result<impl::Blob> blob = world->store().Get(path);
  ASSERT_TRUE(blob.ok());
  Result<impl::ManifestFile> file = impl::DecodeManifestFile(**blob);
  ASSERT_TRUE(file.ok());
  plant(&*file);
  ASSERT_TRUE(
      world->mutable_store()->Put(path, impl::EncodeManifestFile(*file)).ok());
}

impl::pb::MemWalIndexDetails Details(const impl::ManifestFile& file) {
  const impl::pb::IndexMetadata* system =
      impl::FindMemWalIndex(file.index_section);
  EXPECT_NE(system, nullptr);
  Result<impl::pb::MemWalIndexDetails> details =
      impl::UnpackMemWalDetails(*system);
  EXPECT_TRUE(details.ok());
  return *details;
}

TEST(LockstepPlanted,
     AnActionTheModelDisablesButTheImplementationAcceptsIsReported) {
  // The model runs `legacy`, where Activate does not exist; the planted
  // implementation runs `derived`, whose BeginActivate accepts it at Init.
  LockstepSetup setup = TinySetup(1);
  setup.config.protocol = model::Protocol::kLegacy;
  const Result<impl::World> legacy = InitWorld(setup);
  ASSERT_TRUE(legacy.ok());
  EXPECT_FALSE(CheckInit(setup, *legacy).has_value());
  LockstepSetup planted = setup;
  planted.config.protocol = model::Protocol::kDerived;
  const Result<impl::World> world = InitWorld(planted);
  ASSERT_TRUE(world.ok());
  const std::optional<Finding> finding = CheckInit(setup, *world);
  ASSERT_TRUE(finding.has_value());
  EXPECT_EQ(finding->invariant, "ImplementationMatchesModel");
  EXPECT_TRUE(Mentions(finding,
                       "refusals: the implementation accepted "
                       "Activate{}, which the model disables"))
      << finding->detail;
  // And after a step too: the step itself passes, the reached state does not
  // (CheckReachedState).
  impl::World stepped = *world;
  model::Outcome outcome;
  const model::State after =
      model::Apply(setup.config, model::Init(setup.config.bounds),
                   model::FlushMemTable{0}, &outcome);
  EXPECT_FALSE(
      StepLockstep(setup, model::FlushMemTable{0}, outcome, after, &stepped)
          .has_value());
  EXPECT_TRUE(Mentions(CheckReachedState(setup, after, stepped),
                       "accepted Activate{}"));
}

TEST(LockstepPlanted, BoundsAreNotRefusalsButGuardsAre) {
  const LockstepSetup setup = TinySetup(2);
  const model::State init = model::Init(setup.config.bounds);
  const std::vector<model::Action> disabled =
      GuardDisabledActions(setup.config, init);
  auto has = [&](const model::Action& action) {
    return std::find(disabled.begin(), disabled.end(), action) !=
           disabled.end();
  };
  // Guards: nothing is flushed to compact, and the head is not restorable;
  // idx_0 is present (DropIndex enabled); Append is limited by bounds only.
  EXPECT_TRUE(has(model::CompactSsTable{0, false}));
  EXPECT_TRUE(has(model::Restore{1}));
  EXPECT_FALSE(has(model::DropIndex{0}));
  EXPECT_FALSE(has(model::Append{}));
}

TEST(LockstepPlanted, InFlightContentsAreCompared) {
  const LockstepSetup setup = TinySetup(3);
  const Ran run = RunActions(setup, {model::DeleteFragment{0}});
  {
    impl::World world = run.world;
    world.mutable_inflight_for_testing(0)->set_read_version(5);
    EXPECT_TRUE(Mentions(CheckRefinement(setup.config, world, run.state),
                         "in-flight 0: read version 5 (impl) vs 1 (model)"));
  }
  {
    impl::World world = run.world;
    world.mutable_inflight_for_testing(0)
        ->mutable_delete_()
        ->set_deleted_fragment_ids(0, 1);
    EXPECT_TRUE(Mentions(CheckRefinement(setup.config, world, run.state),
                         "in-flight 0: deleted fragment 1 (impl) vs 0"));
  }
  {
    impl::World world = run.world;
    world.mutable_inflight_for_testing(0)->mutable_append();
    const std::optional<Finding> finding =
        CheckRefinement(setup.config, world, run.state);
    ASSERT_TRUE(finding.has_value());
    EXPECT_EQ(finding->invariant, "ImplementationMatchesModel");
    EXPECT_TRUE(Mentions(finding,
                         "in-flight 0: operation Append (impl) vs Delete "
                         "(model DeleteFragment)"))
        << finding->detail;
  }
  EXPECT_FALSE(CheckRefinement(setup.config, run.world, run.state));
}

TEST(LockstepPlanted, TheOperationKindComesFromTheTransactionFile) {
  const LockstepSetup setup = TinySetup(4);
  Ran run = RunActions(setup, {model::Append{}});
  // The commit is applied without a check, so that nothing decodes version 2
  // before its transaction file is planted (decodes are cached by manifest).
  model::Outcome outcome;
  run.state = model::Apply(setup.config, run.state, model::Commit{0}, &outcome);
  ASSERT_TRUE(ApplyToWorld(model::Commit{0}, &run.world).ok());
  // Version 2's transaction file says Delete instead of Append.
  const Result<std::vector<uint64_t>> versions = run.world.Versions();
  ASSERT_TRUE(versions.ok());
  const std::string head =
      run.world.table_root() + impl::VersionFileName(versions->back());
  const Result<impl::Blob> blob = run.world.store().Get(head);
  ASSERT_TRUE(blob.ok());
  const Result<impl::ManifestFile> file = impl::DecodeManifestFile(**blob);
  ASSERT_TRUE(file.ok());
  impl::pb::Transaction planted;
  planted.set_read_version(1);
  planted.mutable_delete_()->add_deleted_fragment_ids(0);
  std::string path = run.world.table_root();
  path.append(impl::kTransactionsDir);
  path.append(file->manifest.transaction_file());
  ASSERT_TRUE(run.world.mutable_store()
                  ->Put(path, impl::EncodeTransaction(planted))
                  .ok());
  const std::optional<Finding> finding =
      CheckRefinement(setup.config, run.world, run.state);
  ASSERT_TRUE(finding.has_value());
  EXPECT_TRUE(Mentions(finding,
                       "version 2: op (its transaction file) DeleteFragment "
                       "fragments {0} (impl) vs Append (model)"))
      << finding->detail;
}

TEST(LockstepPlanted, AZeroPositionEntryBreaksCatchupWithinCompaction) {
  const LockstepSetup setup = TinySetup(5);
  Ran run = RunActions(setup, {model::Append{}, model::Commit{0}});
  RewriteHead(&run.world, [&](impl::ManifestFile* file) {
    impl::pb::MemWalIndexDetails details = Details(*file);
    impl::pb::IndexCatchupProgress* entry = details.add_index_catchup();
    entry->set_index_name("idx_0");
    impl::pb::CompactedSsTable* position = entry->add_caught_up_generations();
    position->mutable_shard_id()->set_uuid(run.world.shard_uuid(0));
    position->set_generation(0);
    impl::PackMemWalDetails(details,
                            impl::FindMemWalIndex(&file->index_section));
  });
  const std::optional<Finding> finding =
      CheckRefinement(setup.config, run.world, run.state);
  ASSERT_TRUE(finding.has_value());
  EXPECT_EQ(finding->invariant, "CatchupWithinCompaction");
  EXPECT_TRUE(Mentions(finding, "whose every position is 0"))
      << finding->detail;
}

TEST(LockstepPlanted, AZeroCompactedEntryIsReported) {
  const LockstepSetup setup = TinySetup(6);
  Ran run = RunActions(setup, {model::Append{}, model::Commit{0}});
  RewriteHead(&run.world, [&](impl::ManifestFile* file) {
    impl::pb::MemWalIndexDetails details = Details(*file);
    impl::pb::CompactedSsTable* entry = details.add_compacted_sstables();
    entry->mutable_shard_id()->set_uuid(run.world.shard_uuid(0));
    entry->set_generation(0);
    impl::PackMemWalDetails(details,
                            impl::FindMemWalIndex(&file->index_section));
  });
  const std::optional<Finding> finding =
      CheckRefinement(setup.config, run.world, run.state);
  ASSERT_TRUE(finding.has_value());
  EXPECT_EQ(finding->invariant, "ImplementationMatchesModel");
  EXPECT_TRUE(Mentions(finding, "compacted_sstables entry of 0"))
      << finding->detail;
}

TEST(LockstepPlanted, ASystemIndexUuidRenewedWithoutChangeIsReported) {
  const LockstepSetup setup = TinySetup(7);
  Ran run = RunActions(setup, {model::Append{}, model::Commit{0}});
  RewriteHead(&run.world, [](impl::ManifestFile* file) {
    impl::FindMemWalIndex(&file->index_section)
        ->mutable_uuid()
        ->set_uuid(std::string(16, '\x5a'));
  });
  const std::optional<Finding> finding =
      CheckRefinement(setup.config, run.world, run.state);
  ASSERT_TRUE(finding.has_value());
  EXPECT_EQ(finding->invariant, "ImplementationMatchesModel");
  EXPECT_TRUE(Mentions(finding,
                       "version 2: the system index uuid changes (impl) while "
                       "its progress is unchanged (model)"))
      << finding->detail;
}

// Activate (derived's compactor waits for it), flush generation 1 of shard 0
// and compact it with the marker: fragment 1 holds the row (0,1) in its data
// file.
Ran CompactedRow(const LockstepSetup& setup) {
  return RunActions(
      setup, {model::Activate{}, model::Commit{0}, model::FlushMemTable{0},
              model::CompactSsTable{0, true}, model::Commit{0}});
}

TEST(LockstepPlanted, TheRowsOfAFragmentComeFromItsDataFile) {
  const LockstepSetup setup = TinySetup(8);
  Ran run = CompactedRow(setup);
  const Result<impl::RowsView> rows = run.world.ReadRows();
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  const std::set<std::pair<uint32_t, uint64_t>> row{{0, 1}};
  EXPECT_EQ(rows->fragments.at(1), row);
  // Fragment 1's data file now holds a base row instead of (0,1): the rows
  // are lost to every query that skips the compacted SSTable.
  const std::string data = "planted-row.lance";
  ASSERT_TRUE(run.world.mutable_store()
                  ->Put(run.world.table_root() + "data/" + data,
                        impl::EncodeRowFile({impl::RowKey{}}))
                  .ok());
  RewriteHead(&run.world, [&](impl::ManifestFile* file) {
    for (impl::pb::DataFragment& fragment :
         *file->manifest.mutable_fragments()) {
      if (fragment.id() == 1) fragment.mutable_files(0)->set_path(data);
    }
  });
  const std::optional<Finding> finding =
      CheckRefinement(setup.config, run.world, run.state);
  ASSERT_TRUE(finding.has_value());
  EXPECT_EQ(finding->invariant, "ReadsMissNoRows") << finding->detail;
  EXPECT_TRUE(
      Mentions(finding, "rows: fragment 1 holds {} (impl) vs {(0,1)} (model)"))
      << finding->detail;
}

TEST(LockstepPlanted, AReaderThatSkipsTheOnlyCopyOfARowIsReadsMissNoRows) {
  // The implementation's reader ignores the bit (impl bug
  // reader-ignores-bit): on the activated table it reads idx_0's missing
  // entry as no cap, so the indexed query skips SSTable (0,1) once it is
  // compacted into fragment 1, which idx_0 does not cover. The persisted
  // state equals the model's; the reader decides ReadsMissNoRows.
  LockstepSetup setup = TinySetup(12);
  setup.impl_only_bugs = model::BugBit(model::Bug::kReaderIgnoresBit);
  Ran run = RunActions(
      setup, {model::Activate{}, model::Commit{0}, model::FlushMemTable{0},
              model::CompactSsTable{0, true}});
  model::Outcome outcome;
  const model::State after =
      model::Apply(setup.config, run.state, model::Commit{0}, &outcome);
  const std::optional<Finding> finding =
      StepLockstep(setup, model::Commit{0}, outcome, after, &run.world);
  ASSERT_TRUE(finding.has_value());
  EXPECT_EQ(finding->invariant, "ReadsMissNoRows") << finding->detail;
  EXPECT_TRUE(Mentions(finding,
                       "persisted state (which equals the model's)\n  read "
                       "through the implementation's reader: query indexes "
                       "{0} misses the row (0,1): the implementation's "
                       "reader's watermark on shard 0 is 1 (the model's "
                       "watermark function on these versions: 0)"))
      << finding->detail;
  EXPECT_TRUE(Mentions(finding,
                       "read side: query indexes {0} shard 0 watermark 1 "
                       "(impl) vs 0 (model)"))
      << finding->detail;
  // The model's own state breaks nothing: only the implementation's reader
  // misses the row.
  EXPECT_EQ(model::FirstBrokenInvariant(setup.config, after), nullptr);
}

TEST(LockstepPlanted, ADeletionFileTheModelDoesNotHaveIsReported) {
  const LockstepSetup setup = TinySetup(9);
  Ran run = CompactedRow(setup);
  // A deletion file naming offset 0 of fragment 1, which no commit deleted.
  impl::pb::DeletionFile deletion;
  deletion.set_file_type(impl::pb::DeletionFile::BITMAP);
  deletion.set_read_version(2);
  deletion.set_id(7);
  deletion.set_num_deleted_rows(1);
  ASSERT_TRUE(
      run.world.mutable_store()
          ->Put(run.world.table_root() + impl::DeletionFilePath(1, deletion),
                impl::EncodeFragmentBitmap(impl::FragmentSet{0}))
          .ok());
  RewriteHead(&run.world, [&](impl::ManifestFile* file) {
    for (impl::pb::DataFragment& fragment :
         *file->manifest.mutable_fragments()) {
      if (fragment.id() == 1) *fragment.mutable_deletion_file() = deletion;
    }
  });
  const std::optional<Finding> finding =
      CheckRefinement(setup.config, run.world, run.state);
  ASSERT_TRUE(finding.has_value());
  EXPECT_EQ(finding->invariant, "ImplementationMatchesModel");
  EXPECT_TRUE(Mentions(finding, "rows: deleted {(0,1)} (impl) vs {} (model)"))
      << finding->detail;
  EXPECT_TRUE(
      Mentions(finding, "rows: fragment 1 holds {} (impl) vs {(0,1)} (model)"))
      << finding->detail;
}

TEST(LockstepPlanted, ADeleteTransactionDeletesTheRowsOfItsFragment) {
  const LockstepSetup setup = TinySetup(10);
  // Lockstep checks every step: the implementation's deleted rows, read from
  // the Delete transaction and fragment 1's data file, equal the model's.
  Ran run = RunActions(
      setup, {model::Activate{}, model::Commit{0}, model::FlushMemTable{0},
              model::CompactSsTable{0, true}, model::Commit{0},
              model::DeleteFragment{1}, model::Commit{0}});
  const Result<impl::RowsView> rows = run.world.ReadRows();
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  const std::set<std::pair<uint32_t, uint64_t>> row{{0, 1}};
  EXPECT_EQ(rows->deleted, row);
  EXPECT_EQ(run.state.deleted, model::RowBit(0, 1));
}

TEST(LockstepPlanted, RecordProgressIsRefusedUntilAFragmentHoldsItsRows) {
  const LockstepSetup setup = TinySetup(11);
  // The data pass has begun but not landed: the model disables
  // RecordProgress{0}, and the implementation refuses it (no live fragment's
  // data file holds a row of (0,1)).
  Ran run = RunActions(
      setup, {model::Activate{}, model::Commit{0}, model::FlushMemTable{0},
              model::CompactSsTable{0, false}});
  const std::vector<model::Action> disabled =
      GuardDisabledActions(setup.config, run.state);
  ASSERT_NE(std::find(disabled.begin(), disabled.end(),
                      model::Action{model::RecordProgress{0}}),
            disabled.end());
  EXPECT_FALSE(CheckRefusals(setup.config, run.state, run.world).has_value());
  // Planted: fragment 0's data file holds the row (0,1), so the
  // implementation's guard passes where the model's does not.
  const std::string data = "planted-progress.lance";
  ASSERT_TRUE(
      run.world.mutable_store()
          ->Put(run.world.table_root() + "data/" + data,
                impl::EncodeRowFile({impl::RowKey{run.world.shard_uuid(0), 1}}))
          .ok());
  RewriteHead(&run.world, [&](impl::ManifestFile* file) {
    file->manifest.mutable_fragments(0)->mutable_files(0)->set_path(data);
  });
  const std::optional<Finding> finding =
      CheckRefusals(setup.config, run.state, run.world);
  ASSERT_TRUE(finding.has_value());
  EXPECT_EQ(finding->invariant, "ImplementationMatchesModel");
  EXPECT_TRUE(Mentions(finding,
                       "refusals: the implementation accepted "
                       "RecordProgress{shard=0}"))
      << finding->detail;
}

}  // namespace
}  // namespace memwal::checker::lockstep
