// impl::ObjectMap's lookups (impl/memory_store.h), checked against std::set's
// answers on paths made to share prefixes, to be prefixes of one another and
// to differ in bytes above 127 (a faster search tried there must keep them).
#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <iterator>
#include <set>
#include <string>
#include <vector>

#include "impl/memory_store.h"

namespace memwal::impl {
namespace {

// Paths over a four-letter alphabet (one byte above 127), at most six long:
// small enough that prefixes and equal paths are common.
rc::Gen<std::string> SmallPath() {
  return rc::gen::container<std::string>(
      rc::gen::elementOf(std::string("ab/\xC3")));
}

// Every lookup of `query` answers as std::set's lower_bound does.
void ExpectSameLookups(const MemoryStore& store,
                       const std::set<std::string>& paths,
                       const std::string& query) {
  const ObjectMap& objects = store.objects();
  const auto expected = paths.lower_bound(query);
  const auto got = objects.lower_bound(query);
  const auto position = std::distance(objects.begin(), got);
  RC_ASSERT(position == std::distance(paths.begin(), expected));
  const bool present = paths.count(query) != 0;
  RC_ASSERT((objects.find(query) != objects.end()) == present);
  RC_ASSERT(objects.count(query) == (present ? 1u : 0u));
  RC_ASSERT((objects.Find(query) != nullptr) == present);
  if (present) RC_ASSERT(objects.find(query)->first == query);
  RC_ASSERT(store.Get(query).ok() == present);
}

RC_GTEST_PROP(ObjectMap, LookupsAnswerAsAnOrderedSetDoes, ()) {
  const auto stored = *rc::gen::resize(
      12, rc::gen::container<std::vector<std::string>>(SmallPath()));
  MemoryStore store;
  std::set<std::string> paths;
  for (const std::string& path : stored) {
    if (path.empty()) continue;  // the store refuses an empty name
    RC_ASSERT(store.Put(path, path).ok());
    paths.insert(path);
  }
  const auto queries = *rc::gen::resize(
      12, rc::gen::container<std::vector<std::string>>(SmallPath()));
  for (const std::string& query : queries)
    ExpectSameLookups(store, paths, query);
  // Every stored path, and each one cut short or extended by a byte.
  for (const std::string& path : paths) {
    ExpectSameLookups(store, paths, path);
    ExpectSameLookups(store, paths, path.substr(0, path.size() - 1));
    ExpectSameLookups(store, paths, path + "a");
    ExpectSameLookups(store, paths, path + "\xFF");
  }
}

TEST(ObjectMap, FindsTablePathsThatShareTheirRootAndDirectory) {
  MemoryStore store;
  const std::vector<std::string> paths = {
      "t/_versions/1.manifest", "t/_versions/10.manifest",
      "t/_versions/2.manifest", "t/_transactions/0-a.txn",
      "t/data/x.lance",         "u/_versions/1.manifest"};
  for (const std::string& path : paths) ASSERT_TRUE(store.Put(path, path).ok());
  for (const std::string& path : paths)
    EXPECT_EQ(**store.Get(path), path) << path;
  EXPECT_FALSE(store.Get("t/_versions/1.manifes").ok());
  EXPECT_FALSE(store.Get("t/_versions/1.manifestx").ok());
  EXPECT_FALSE(store.Get("t/_versions/3.manifest").ok());
  EXPECT_EQ(store.objects().lower_bound("t/_versions/")->first,
            "t/_versions/1.manifest");
  EXPECT_EQ(store.objects().lower_bound("t/_versions0"),
            store.objects().find("t/data/x.lance"));
  EXPECT_EQ(store.objects().lower_bound("v"), store.objects().end());
}

}  // namespace
}  // namespace memwal::impl
