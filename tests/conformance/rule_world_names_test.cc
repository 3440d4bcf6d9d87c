// World reads a table's user indexes as the model's index numbers by name:
// `idx_` and one to eight decimal digits name index N (World::Create names
// them so; `memwal-check validate` reads tables written elsewhere through the
// same views). Any other name is not one of World's indexes: reading that
// version refuses it (Corruption, a one-line error) instead of mapping it to
// some index number. Each name below is a foreign writer's rename of index
// 0 in a version of its own.
#include <gtest/gtest.h>

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "impl/table.h"
#include "impl/world.h"
#include "tests/impl/world_fixture.h"

namespace memwal {
namespace {

using impl::World;

struct Name {
  std::string name;
  std::optional<uint32_t> number;  // nullopt: refused
};

TEST(RuleFunctions, AUserIndexIsReadAsIndexNOnlyWhenNamedIdxAndItsDigits) {
  const std::vector<Name> names = {
      {"idx_0", 0},          {"idx_7", 7},       {"idx_9", 9},
      {"idx_10", 10},        {"idx_09", 9},      {"idx_12345678", 12345678},
      {"idx_123456789", {}}, {"idx_", {}},       {"idx", {}},
      {"idy_1", {}},         {"xidx_1", {}},     {"abcd1", {}},
      {"idx_1a", {}},        {"idx_a1", {}},     {"idx_/", {}},
      {"idx_:", {}},         {"vector_idx", {}}, {"idx_99999999", 99999999},
  };
  for (const Name& name : names) {
    Result<World> created = World::Create(impl::Options{.seed = 1});
    ASSERT_TRUE(created.ok());
    World world = std::move(created).value();
    impl::testing::PublishForeign(world, [&](impl::ManifestFile* file) {
      for (impl::pb::IndexMetadata& index :
           *file->index_section.mutable_indices()) {
        if (index.name() == "idx_0") index.set_name(name.name);
      }
    });
    const auto versions = world.Versions();
    ASSERT_TRUE(versions.ok());
    const Result<impl::TableVersion> version =
        world.ReadVersion(versions->back());
    if (!name.number.has_value()) {
      EXPECT_FALSE(version.ok()) << "'" << name.name << "' was read";
      if (!version.ok()) {
        EXPECT_EQ(version.status().code(), StatusCode::kCorruption)
            << name.name << ": " << version.status().ToString();
      }
      continue;
    }
    ASSERT_TRUE(version.ok())
        << name.name << ": " << version.status().ToString();
    ASSERT_EQ(version->segments.size(), 1u) << name.name;
    EXPECT_EQ(version->segments.begin()->first, *name.number) << name.name;
  }
}

}  // namespace
}  // namespace memwal
