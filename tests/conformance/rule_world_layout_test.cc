// The table a World writes is laid out as Lance writes one, after every step
// of a random walk of World actions (the model's actions and the env ones),
// on what Lance's reader and writer need and the model's abstraction never
// reads:
//
// - every uuid World draws (index segments, the system index) is 16 bytes in
//   RFC 4122's version 4 layout (what Lance's Uuid::new_v4 writes), and no two
//   indexes of a version share one;
// - every version's transaction has a uuid in the 36-character form, unique
//   over the table's history (Lance names transaction files by it);
// - in every live fragment, each field of the schema is held by exactly one
//   data file, and each data file lists as many column indices as fields
//   (Lance's DataFile; UpdateColumns tombstones the old column as -2);
// - every data file is a `<uuid>.lance` path, unique in its fragment, of the
//   Lance file version the manifest's data format names (2.1);
// - max_fragment_id is at least every live fragment's id;
// - every version's transaction read a version before it (a clone keeps the
//   version it copies), version 0 only for the table's first version, and its
//   file is named `{read_version}-{uuid}.txn`; a Clone names its source
//   (ref_path, at ref_version, the version it copies), and a shallow clone's
//   manifest has that source as a base path;
// - every index was built on a version of the table (1 <= dataset_version <=
//   version); an index whose uuid is new in a version was built on the
//   transaction's read version or later (Lance stamps a CreateIndex's segment
//   with its read version and a rewritten __lance_mem_wal with the commit
//   version), unless the version restores an older one or remaps segments
//   for a Rewrite (a remapped segment keeps its dataset_version);
// - every file a live fragment names can be read (a deep clone copies the
//   files its source keeps under base paths too), and every live row's
//   stable row id is below next_row_id (the next id Lance
//   hands out), and a Rewrite keeps the live rows' stable row ids (compaction
//   moves rows with their ids, the point of stable row ids).
//
// The bounded search compares the abstraction (live fragments, segments,
// progress, rows), so a mutant that drops a data file's field or a uuid's
// version bits passes every lockstep entry; these fail here.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "impl/format.h"
#include "impl/rows.h"
#include "impl/table.h"
#include "impl/world.h"

namespace memwal {
namespace {

using impl::World;

bool IsVersion4(const std::string& raw) {
  return raw.size() == 16 && (static_cast<uint8_t>(raw[6]) >> 4) == 4 &&
         (static_cast<uint8_t>(raw[8]) >> 6) == 2;
}

bool IsUuidText(const std::string& text) {
  if (text.size() != 36) return false;
  for (size_t k = 0; k < text.size(); ++k) {
    const bool dash = k == 8 || k == 13 || k == 18 || k == 23;
    const char c = text[k];
    if (dash ? c != '-' : !((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f')))
      return false;
  }
  return true;
}

// One step of the walk: a World action with small arguments (errors and
// refusals are steps too).
void Step(World& world, int kind, uint32_t shard, uint32_t index,
          uint64_t small) {
  switch (kind) {
    case 0:
      (void)world.FlushMemTable(shard);
      break;
    case 1:
      (void)world.RetireSsTable(shard, small);
      break;
    case 2:
      (void)world.BeginAppend();
      break;
    case 3:
      (void)world.BeginDeleteFragment(small - 1);
      break;
    case 4:
      (void)world.BeginCompactSsTable(shard, small != 2);
      break;
    case 5:
      (void)world.BeginUpdateColumns(small - 1, index);
      break;
    case 6:
      (void)world.BeginRewriteFragments(0, small);
      break;
    case 7:
      (void)world.BeginCreateIndex(index);
      break;
    case 8:
      (void)world.BeginOptimizeIndex(index);
      break;
    case 9:
      (void)world.BeginDropIndex(index);
      break;
    case 10:
      (void)world.BeginRecordProgress(shard);
      break;
    case 11:
      (void)world.BeginActivate();
      break;
    case 12:
      (void)world.BeginReinstallMemWal();
      break;
    case 13:
      (void)world.Restore(small);
      break;
    case 14:
      (void)world.ShallowClone();
      break;
    case 15:
      (void)world.CleanupVersions();
      break;
    case 16:
      (void)world.ResetMemWal();
      break;
    case 17:
      (void)world.ForeignCompaction(shard);
      break;
    case 18:
      (void)world.BeginCallerAdvance(index, static_cast<uint32_t>(small - 1));
      break;
    case 19:
      (void)world.ForeignHalfSet();
      break;
    case 20:
      (void)world.DropMemWal();
      break;
    case 21:
      (void)world.DeepClone();
      break;
    case 22:
      (void)world.RetireDecide(shard, small);
      break;
    case 23:
      (void)world.RetireExecute(shard, small);
      break;
    default:  // Commits, the most frequent step.
      if (world.inflight_count() > 0)
        (void)world.Commit(small % world.inflight_count());
      break;
  }
}

// What the walk remembers of the head before the step.
struct Previous {
  std::string root;
  uint64_t version = 0;
  std::set<std::string> index_uuids;
  std::multiset<uint64_t> live_row_ids;
};

// The transaction's fields Lance's commit and clone write; "" if they hold.
std::string TransactionProblem(const impl::ManifestFile& file,
                               const std::string& root,
                               const Previous& previous) {
  const impl::pb::Transaction& t = *file.transaction;
  const uint64_t version = file.manifest.version();
  const std::string at = "version " + std::to_string(version) + "'s ";
  const uint64_t read = t.read_version();
  if (t.has_clone() ? read > version : read >= version)
    return at + "transaction read version " + std::to_string(read);
  if (read == 0 && version != 1)
    return at + "transaction read version 0 past the first version";
  const std::string prefix = std::to_string(read) + "-";
  if (file.manifest.transaction_file().rfind(prefix, 0) != 0 ||
      file.manifest.transaction_file().size() != prefix.size() + 36 + 4)
    return at + "transaction file '" + file.manifest.transaction_file() + "'";
  if (!t.has_clone()) return "";
  const auto& clone = t.clone();
  if (clone.ref_version() != version)
    return at + "clone names ref_version " +
           std::to_string(clone.ref_version());
  // The step that cloned moved the walk from the source to the clone.
  const bool cloned_now = previous.root != root;
  if (clone.ref_path().empty() ||
      (cloned_now && clone.ref_path() != previous.root))
    return at + "clone names ref_path '" + clone.ref_path() + "'";
  if (clone.is_shallow()) {
    bool based = false;
    for (const auto& base : file.manifest.base_paths())
      based =
          based || (base.path() == clone.ref_path() && base.is_dataset_root());
    if (!based) return at + "shallow clone has no base path of its source";
  }
  return "";
}

// The head's layout; a description of the first thing wrong, or "".
std::string LayoutProblem(const World& world,
                          std::map<std::string, uint64_t>* transactions,
                          Previous* previous) {
  impl::PrefixedStore table(const_cast<impl::MemoryStore*>(&world.store()),
                            world.table_root());
  const Result<impl::Snapshot> head = impl::LoadHead(table);
  if (!head.ok()) return "";  // A head Lance refuses is lockstep's business.
  const impl::ManifestFile& file = *head->file;
  const uint64_t version = file.manifest.version();
  std::set<std::string> uuids;
  for (const impl::pb::IndexMetadata& index : file.index_section.indices()) {
    if (!IsVersion4(index.uuid().uuid()))
      return "index " + index.name() + " has a uuid that is not version 4";
    if (!uuids.insert(index.uuid().uuid()).second)
      return "two indexes share the uuid of " + index.name();
    if (index.dataset_version() < 1 || index.dataset_version() > version)
      return "index " + index.name() + " was built on version " +
             std::to_string(index.dataset_version()) + " of version " +
             std::to_string(version);
  }
  // The step wrote one version onto the table the walk saw before it.
  const bool next =
      previous->root == world.table_root() && previous->version + 1 == version;
  if (file.transaction.has_value()) {
    const std::string problem =
        TransactionProblem(file, world.table_root(), *previous);
    if (!problem.empty()) return problem;
    // (A Rewrite's remapped segment keeps the dataset_version it was built
    // on under its new uuid, and a Restore brings back older segments.)
    if (next && !file.transaction->has_restore() &&
        !file.transaction->has_rewrite()) {
      for (const impl::pb::IndexMetadata& index :
           file.index_section.indices()) {
        if (previous->index_uuids.count(index.uuid().uuid()) != 0) continue;
        if (index.dataset_version() < file.transaction->read_version())
          return "index " + index.name() + " new in version " +
                 std::to_string(version) + " was built on version " +
                 std::to_string(index.dataset_version()) +
                 ", before its transaction's read version " +
                 std::to_string(file.transaction->read_version());
      }
    }
  }
  if (file.transaction.has_value()) {
    const std::string& uuid = file.transaction->uuid();
    if (!IsUuidText(uuid))
      return "version " + std::to_string(version) +
             "'s transaction uuid is not a uuid: '" + uuid + "'";
    const auto [at, fresh] = transactions->emplace(uuid, version);
    if (!fresh && at->second != version)
      return "versions " + std::to_string(at->second) + " and " +
             std::to_string(version) + " share a transaction uuid";
  }
  const std::string format = file.manifest.data_format().version();
  std::set<int32_t> schema;
  for (const auto& field : file.manifest.fields()) schema.insert(field.id());
  for (const impl::pb::DataFragment& fragment : file.manifest.fragments()) {
    const std::string name = "fragment " + std::to_string(fragment.id());
    if (fragment.id() > file.manifest.max_fragment_id())
      return name + " is above max_fragment_id";
    std::map<int32_t, int> holders;
    std::set<std::string> paths;
    for (const impl::pb::DataFile& data : fragment.files()) {
      if (data.fields_size() != data.column_indices_size())
        return name + ": a data file lists " +
               std::to_string(data.fields_size()) + " fields and " +
               std::to_string(data.column_indices_size()) + " column indices";
      const std::string file_version =
          std::to_string(data.file_major_version()) + "." +
          std::to_string(data.file_minor_version());
      if (file_version != format)
        return name + ": a data file of Lance file version " + file_version +
               " in a table of data format " + format;
      const std::string& path = data.path();
      if (path.size() != 36 + 6 || !IsUuidText(path.substr(0, 36)) ||
          path.substr(36) != ".lance")
        return name + ": data file path '" + path + "'";
      if (!paths.insert(path).second)
        return name + " lists data file " + path + " twice";
      for (const int32_t field : data.fields()) {
        if (field >= 0) ++holders[field];
      }
    }
    for (const int32_t field : schema) {
      if (holders[field] != 1)
        return name + ": field " + std::to_string(field) + " is in " +
               std::to_string(holders[field]) + " data files";
    }
    if (holders.size() != schema.size())
      return name + " holds a field the schema does not have";
  }
  std::multiset<uint64_t> live;
  for (const impl::pb::DataFragment& fragment : file.manifest.fragments()) {
    const Result<impl::FragmentRows> rows = impl::ReadFragmentRows(
        world.store(), world.table_root(), file.manifest, fragment);
    if (!rows.ok())  // Every file a live fragment names is there to read.
      return "fragment " + std::to_string(fragment.id()) + ": " +
             rows.status().ToString();
    for (size_t offset = 0; offset < rows->row_ids.size(); ++offset) {
      const uint64_t id = rows->row_ids[offset];
      if (id >= file.manifest.next_row_id())
        return "fragment " + std::to_string(fragment.id()) + " has row id " +
               std::to_string(id) + ", next_row_id is " +
               std::to_string(file.manifest.next_row_id());
      if (rows->deleted.count(offset) == 0) live.insert(id);
    }
  }
  if (next && file.transaction.has_value() && file.transaction->has_rewrite() &&
      live != previous->live_row_ids)
    return "the rewrite of version " + std::to_string(version) +
           " changed the live rows' stable row ids";
  previous->root = world.table_root();
  previous->version = version;
  previous->index_uuids = std::move(uuids);
  previous->live_row_ids = std::move(live);
  return "";
}

RC_GTEST_PROP(RuleFunctions,
              TheTableAWorldWritesIsLaidOutAsLanceWritesOneAfterEveryStep, ()) {
  impl::Options options;
  options.protocol =
      *rc::gen::element(impl::Protocol::kDerived, impl::Protocol::kAdvance,
                        impl::Protocol::kUnconditional);
  // One table in eight is a plain Lance table, without the MemWAL (and so
  // without shards): every MemWAL action refuses, the others write it.
  options.memwal = *rc::gen::inRange(0, 8) != 0;
  options.shards = options.memwal ? *rc::gen::inRange<uint32_t>(1, 3) : 0;
  options.indexes = *rc::gen::inRange<uint32_t>(1, 3);
  options.seed = *rc::gen::inRange<uint64_t>(0, 1000);
  Result<World> created = World::Create(options);
  RC_ASSERT(created.ok());
  World world = std::move(created).value();
  std::map<std::string, uint64_t> transactions;
  Previous previous;
  RC_ASSERT(LayoutProblem(world, &transactions, &previous) == "");
  const int steps = *rc::gen::inRange(10, 60);
  for (int step = 0; step < steps; ++step) {
    const int kind = *rc::gen::inRange(0, 38);
    const auto shard =
        *rc::gen::inRange<uint32_t>(0, std::max<uint32_t>(options.shards, 1));
    const auto index = *rc::gen::inRange<uint32_t>(0, options.indexes);
    const auto small = *rc::gen::inRange<uint64_t>(1, 4);
    Step(world, kind, shard, index, small);
    const std::string problem = LayoutProblem(world, &transactions, &previous);
    RC_LOG() << "step " << step << " kind " << kind << "\n";
    RC_ASSERT(problem == "");
  }
  RC_TAG(transactions.size() / 4);
}

// A deep clone of a shallow clone owns every file its version names: the
// shallow clone's data files live under its source's root (a base path), and
// the deep clone, which has no base paths, must have copied them too. (World
// copied only the source root's own data/ and _deletions/ until this test.)
TEST(RuleFunctions, ADeepCloneOfAShallowCloneReadsTheRowsOfItsSource) {
  Result<World> created = World::Create(impl::Options{});
  ASSERT_TRUE(created.ok());
  World world = std::move(created).value();
  ASSERT_TRUE(world.BeginAppend().ok());
  ASSERT_TRUE(world.Commit(0).ok());
  ASSERT_TRUE(world.BeginDeleteFragment(0).ok());
  ASSERT_TRUE(world.Commit(0).ok());
  const Result<impl::RowsView> before = world.ReadRows();
  ASSERT_TRUE(before.ok()) << before.status().ToString();
  ASSERT_TRUE(world.ShallowClone().ok());
  ASSERT_TRUE(world.DeepClone().ok());
  const Result<impl::RowsView> after = world.ReadRows();
  ASSERT_TRUE(after.ok()) << after.status().ToString();
  std::map<std::string, uint64_t> transactions;
  Previous previous;
  previous.root = world.table_root();  // no step to compare
  EXPECT_EQ(LayoutProblem(world, &transactions, &previous), "");
}

}  // namespace
}  // namespace memwal
