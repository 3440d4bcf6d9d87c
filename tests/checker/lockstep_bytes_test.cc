// The abstraction reads the implementation's bytes alone (issue 40): for
// each field of the abstract state, a planted change in the implementation's
// persisted bytes for that field (a manifest, a transaction file, a shard
// manifest) is caught by an invariant evaluated on the implementation or by
// the comparison with the model. And an implementation that writes a wrong
// operation into its transaction file is caught where the model's op would
// have exempted it.
#include <gtest/gtest.h>

#include <functional>

#include "checker/lockstep/lockstep.h"
#include "checker/lockstep/refinement.h"
#include "impl/feature_flags.h"
#include "impl/format.h"
#include "impl/table.h"
#include "lockstep_steps.h"

namespace memwal::checker::lockstep {
namespace {

using testing::Mentions;
using testing::Ran;
using testing::RunSteps;
LockstepSetup TinySetup(uint64_t seed) {
  return testing::TinySetup(0xb17e5000, seed);
}

std::string HeadPath(const impl::World& world) {
  const Result<std::vector<uint64_t>> versions = world.Versions();
  EXPECT_TRUE(versions.ok());
  return world.table_root() + impl::VersionFileName(versions->back());
}

// Rewrites the head's manifest file.
void PlantManifest(impl::World* world,
                   const std::function<void(impl::ManifestFile*)>& plant) {
  const std::string path = HeadPath(*world);
  const Result<impl::Blob> blob = world->store().Get(path);
  ASSERT_TRUE(blob.ok());
  Result<impl::ManifestFile> file = impl::DecodeManifestFile(**blob);
  ASSERT_TRUE(file.ok());
  plant(&*file);
  ASSERT_TRUE(
      world->mutable_store()->Put(path, impl::EncodeManifestFile(*file)).ok());
}

// Rewrites the head's transaction file (and the copy its manifest embeds).
void PlantTransaction(
    impl::World* world,
    const std::function<void(impl::pb::Transaction*)>& plant) {
  PlantManifest(world, [&](impl::ManifestFile* file) {
    ASSERT_TRUE(file->transaction.has_value());
    plant(&*file->transaction);
    std::string path = world->table_root();
    path.append(impl::kTransactionsDir);
    path.append(file->manifest.transaction_file());
    ASSERT_TRUE(world->mutable_store()
                    ->Put(path, impl::EncodeTransaction(*file->transaction))
                    .ok());
  });
}

std::optional<Finding> Check(const LockstepSetup& setup, const Ran& run) {
  return CheckRefinement(setup.config, run.world, run.state);
}

TEST(AbstractionFromBytes, EqualsTheModelAlongARunWithEveryKindOfField) {
  LockstepSetup setup = TinySetup(1);
  setup.config.env = model::Env::kForeign;
  setup.config.bounds.fragments = 3;
  const Ran run = RunSteps(
      setup, {model::Activate{}, model::Commit{0}, model::FlushMemTable{0},
              model::CompactSsTable{0, true}, model::Commit{0},
              model::CreateIndex{0}, model::Append{}});
  const Result<model::State> abstract =
      AbstractPersisted(setup.config, run.world);
  ASSERT_TRUE(abstract.ok()) << abstract.status().ToString();
  EXPECT_TRUE(Diff(setup.config, *abstract, run.state).empty());
  EXPECT_EQ(abstract->committed, run.state.committed);
  EXPECT_EQ(abstract->next_fragment, run.state.next_fragment);
  EXPECT_TRUE(abstract->activated);
  EXPECT_EQ(abstract->inflight_count, 2);
  EXPECT_EQ(abstract->inflight[0], run.state.inflight[0]);
  EXPECT_EQ(abstract->inflight[1], run.state.inflight[1]);
  EXPECT_EQ(abstract->versions[2].op, run.state.versions[2].op);
}

// Acceptance: the model's ResetMemWal (R62) would exempt the regression of
// compacted_sstables; the implementation's transaction file says a user
// index repair, so the implementation's own state breaks the invariant.
TEST(AbstractionFromBytes, AWrongOperationIsCaughtWhereTheModelsOpExempts) {
  LockstepSetup setup = TinySetup(2);
  setup.config.env = model::Env::kForeign;
  Ran run =
      RunSteps(setup,
               {model::Activate{}, model::Commit{0}, model::FlushMemTable{0},
                model::CompactSsTable{0, true}, model::Commit{0}},
               {model::ResetMemWal{}});
  EXPECT_EQ(model::Head(run.state).op.kind, model::OpKind::kResetMemWal);
  PlantTransaction(&run.world, [](impl::pb::Transaction* t) {
    t->mutable_create_index()->Clear();
    (*t->mutable_transaction_properties())[std::string(
        impl::kRepairIndexProperty)] = "idx_0";
  });
  const std::optional<Finding> finding = Check(setup, run);
  ASSERT_TRUE(finding.has_value());
  EXPECT_EQ(finding->invariant, "CompactionNeverRegresses") << finding->detail;
  EXPECT_TRUE(Mentions(finding, "op (its transaction file) OptimizeIndex"))
      << finding->detail;
}

// Fields of a version: live fragments (the manifest's fragment list).
TEST(AbstractionFromBytes, APlantedLiveFragmentListIsCaught) {
  const LockstepSetup setup = TinySetup(3);
  Ran run = RunSteps(setup, {}, {model::Append{}, model::Commit{0}});
  PlantManifest(&run.world, [](impl::ManifestFile* file) {
    file->manifest.mutable_fragments()->RemoveLast();
  });
  const std::optional<Finding> finding = Check(setup, run);
  ASSERT_TRUE(finding.has_value());
  EXPECT_TRUE(Mentions(finding, "version 2: live {0} (impl) vs {0,1} (model)"))
      << finding->detail;
}

// The feature words.
TEST(AbstractionFromBytes, APlantedHalfSetPairIsFeatureBitsArePaired) {
  const LockstepSetup setup = TinySetup(4);
  Ran run = RunSteps(setup, {}, {model::Append{}, model::Commit{0}});
  PlantManifest(&run.world, [](impl::ManifestFile* file) {
    file->manifest.set_reader_feature_flags(
        file->manifest.reader_feature_flags() | impl::kFlagMemWalIndexCatchup);
  });
  const std::optional<Finding> finding = Check(setup, run);
  ASSERT_TRUE(finding.has_value());
  EXPECT_EQ(finding->invariant, "FeatureBitsArePaired") << finding->detail;
}

// The system index's presence.
TEST(AbstractionFromBytes, APlantedSystemIndexDropIsCaught) {
  const LockstepSetup setup = TinySetup(5);
  Ran run = RunSteps(setup, {}, {model::Append{}, model::Commit{0}});
  PlantManifest(&run.world, [](impl::ManifestFile* file) {
    auto* indices = file->index_section.mutable_indices();
    for (int k = indices->size() - 1; k >= 0; --k) {
      if (indices->Get(k).name() == impl::kMemWalIndexName)
        indices->DeleteSubrange(k, 1);
    }
  });
  const std::optional<Finding> finding = Check(setup, run);
  ASSERT_TRUE(finding.has_value());
  EXPECT_TRUE(
      Mentions(finding, "version 2: __lance_mem_wal dropped 1 (impl) vs 0"))
      << finding->detail;
}

// next_fragment: the head manifest's max_fragment_id.
TEST(AbstractionFromBytes, APlantedFragmentHighWaterMarkIsCaught) {
  const LockstepSetup setup = TinySetup(6);
  Ran run = RunSteps(setup, {}, {model::Append{}, model::Commit{0}});
  PlantManifest(&run.world, [](impl::ManifestFile* file) {
    file->manifest.set_max_fragment_id(3);
  });
  const std::optional<Finding> finding = Check(setup, run);
  ASSERT_TRUE(finding.has_value());
  EXPECT_EQ(finding->invariant, "ImplementationMatchesModel");
  EXPECT_TRUE(Mentions(finding,
                       "next fragment id (max_fragment_id + 1): 4 "
                       "(impl) vs 2 (model)"))
      << finding->detail;
}

// activated: an activation in the transaction file whose manifest carries no
// bit breaks ActivationIsPermanent on the implementation.
TEST(AbstractionFromBytes, APlantedActivationWithoutTheBitIsCaught) {
  const LockstepSetup setup = TinySetup(7);
  Ran run = RunSteps(setup, {}, {model::Append{}, model::Commit{0}});
  PlantTransaction(&run.world, [](impl::pb::Transaction* t) {
    t->mutable_update_mem_wal_state()->set_require_index_catchup(true);
  });
  const std::optional<Finding> finding = Check(setup, run);
  ASSERT_TRUE(finding.has_value());
  EXPECT_EQ(finding->invariant, "ActivationIsPermanent") << finding->detail;
}

// foreign_legacy and the op kind: a merge-insert whose manifest names the
// `unconditional`-era writer is the R64 foreign compactor's.
TEST(AbstractionFromBytes, APlantedForeignWriterVersionIsCaught) {
  LockstepSetup setup = TinySetup(8);
  setup.config.env = model::Env::kForeign;
  Ran run = RunSteps(
      setup, {model::Activate{}, model::Commit{0}, model::FlushMemTable{0}},
      {model::CompactSsTable{0, true}, model::Commit{0}});
  PlantManifest(&run.world, [](impl::ManifestFile* file) {
    file->manifest.mutable_writer_version()->set_version("12.0.0");
    file->manifest.mutable_writer_version()->clear_prerelease();
  });
  const std::optional<Finding> finding = Check(setup, run);
  ASSERT_TRUE(finding.has_value());
  EXPECT_TRUE(Mentions(finding,
                       "foreign compactor committed (writer_version): "
                       "1 (impl) vs 0 (model)"))
      << finding->detail;
  EXPECT_TRUE(Mentions(finding, "ForeignCompaction")) << finding->detail;
}

// The op's details: the fragment a Delete names.
TEST(AbstractionFromBytes, APlantedDeletedFragmentIdIsCaught) {
  const LockstepSetup setup = TinySetup(9);
  Ran run = RunSteps(setup, {model::Append{}, model::Commit{0}},
                     {model::DeleteFragment{1}, model::Commit{0}});
  PlantTransaction(&run.world, [](impl::pb::Transaction* t) {
    t->mutable_delete_()->set_deleted_fragment_ids(0, 0);
  });
  const std::optional<Finding> finding = Check(setup, run);
  ASSERT_TRUE(finding.has_value());
  EXPECT_TRUE(Mentions(finding,
                       "DeleteFragment fragments {0} (impl) vs "
                       "DeleteFragment fragments {1} (model)"))
      << finding->detail;
}

// committed: a version more in the lineage.
TEST(AbstractionFromBytes, APlantedExtraVersionIsCaught) {
  const LockstepSetup setup = TinySetup(10);
  Ran run = RunSteps(setup, {}, {model::Append{}, model::Commit{0}});
  const std::string head = HeadPath(run.world);
  const Result<impl::Blob> blob = run.world.store().Get(head);
  ASSERT_TRUE(blob.ok());
  Result<impl::ManifestFile> file = impl::DecodeManifestFile(**blob);
  ASSERT_TRUE(file.ok());
  file->manifest.set_version(3);
  ASSERT_TRUE(run.world.mutable_store()
                  ->Put(run.world.table_root() + impl::VersionFileName(3),
                        impl::EncodeManifestFile(*file))
                  .ok());
  const std::optional<Finding> finding = Check(setup, run);
  ASSERT_TRUE(finding.has_value());
  EXPECT_TRUE(Mentions(finding,
                       "commits after Init (versions of the lineage): "
                       "2 (impl) vs 1 (model)"))
      << finding->detail;
}

// In-flight transactions: the staged transaction decides the model's Txn.
TEST(AbstractionFromBytes, APlantedStagedTransactionIsCaught) {
  const LockstepSetup setup = TinySetup(11);
  Ran run = RunSteps(setup, {model::CreateIndex{0}});
  run.world.mutable_inflight_for_testing(0)
      ->mutable_create_index()
      ->clear_removed_indices();
  const std::optional<Finding> finding = Check(setup, run);
  ASSERT_TRUE(finding.has_value());
  // Without removing the read version's segment, it is a delta: an optimize.
  EXPECT_TRUE(Mentions(finding, "in-flight 0: OptimizeIndex read 1"))
      << finding->detail;
}

// The WAL: the shard manifest stops listing the flushed SSTable (as a
// retirement would), which the model did not retire.
TEST(AbstractionFromBytes, APlantedShardManifestIsCaught) {
  const LockstepSetup setup = TinySetup(12);
  Ran run = RunSteps(setup, {model::FlushMemTable{0}});
  const std::string dir = run.world.wal_root() +
                          impl::ShardManifestDir(run.world.shard_uuid(0)) +
                          "manifest/";
  std::string latest;
  uint64_t version = 0;
  for (const auto& [path, blob] : run.world.store().objects()) {
    if (path.rfind(dir, 0) != 0) continue;
    const std::optional<uint64_t> named = impl::ParseShardManifestName(path);
    ASSERT_TRUE(named.has_value()) << path;
    if (*named > version) {
      version = *named;
      latest = path;
    }
  }
  ASSERT_FALSE(latest.empty());
  Result<impl::pb::ShardManifest> manifest =
      impl::DecodeShardManifest(*run.world.store().objects().at(latest));
  ASSERT_TRUE(manifest.ok());
  ASSERT_EQ(manifest->sstables_size(), 1);
  manifest->clear_sstables();
  ASSERT_TRUE(run.world.mutable_store()
                  ->Put(latest, impl::EncodeShardManifest(*manifest))
                  .ok());
  const std::optional<Finding> finding = Check(setup, run);
  ASSERT_TRUE(finding.has_value());
  EXPECT_TRUE(Mentions(finding,
                       "shard 0: retired generations (bit g-1) {0} (impl) vs "
                       "{} (model)"))
      << finding->detail;
}

}  // namespace
}  // namespace memwal::checker::lockstep
