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
// - max_fragment_id is at least every live fragment's id.
//
// The bounded search compares the abstraction (live fragments, segments,
// progress, rows), so a mutant that drops a data file's field or a uuid's
// version bits passes every lockstep entry; these fail here.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <map>
#include <set>
#include <string>
#include <vector>

#include "impl/format.h"
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

// The head's layout; a description of the first thing wrong, or "".
std::string LayoutProblem(const World& world,
                          std::map<std::string, uint64_t>* transactions) {
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
  return "";
}

RC_GTEST_PROP(RuleFunctions,
              TheTableAWorldWritesIsLaidOutAsLanceWritesOneAfterEveryStep, ()) {
  impl::Options options;
  options.protocol =
      *rc::gen::element(impl::Protocol::kDerived, impl::Protocol::kAdvance,
                        impl::Protocol::kUnconditional);
  options.shards = *rc::gen::inRange<uint32_t>(1, 3);
  options.indexes = *rc::gen::inRange<uint32_t>(1, 3);
  options.seed = *rc::gen::inRange<uint64_t>(0, 1000);
  Result<World> created = World::Create(options);
  RC_ASSERT(created.ok());
  World world = std::move(created).value();
  std::map<std::string, uint64_t> transactions;
  const int steps = *rc::gen::inRange(10, 60);
  for (int step = 0; step < steps; ++step) {
    const int kind = *rc::gen::inRange(0, 38);
    const auto shard = *rc::gen::inRange<uint32_t>(0, options.shards);
    const auto index = *rc::gen::inRange<uint32_t>(0, options.indexes);
    const auto small = *rc::gen::inRange<uint64_t>(1, 4);
    Step(world, kind, shard, index, small);
    const std::string problem = LayoutProblem(world, &transactions);
    RC_LOG() << "step " << step << " kind " << kind << "\n";
    RC_ASSERT(problem == "");
  }
  RC_TAG(transactions.size() / 4);
}

}  // namespace
}  // namespace memwal
