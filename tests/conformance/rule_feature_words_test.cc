// The feature-word rule (R35 steps 1 and 4-6; Lance's new_from_previous,
// inherit_mem_wal_index_catchup and apply_feature_flags [P §2.2, §2.3]) of the
// implementation against the model's, on head words the bounded search cannot
// produce: bit 128 in one word only, in both, in neither, next to other flags
// Lance re-derives from the manifest's content. The model's head is Init's
// with its two bits overwritten; the implementation's head is a foreign
// writer's version with the same words written raw. Both then begin an Append
// or an Activate and commit it; the outcome (published or refused, at begin or
// at commit) and the published version's two bits must agree.
//
// The property runs each protocol with the feature-bit bugs both sides
// express; the implementation-only bugs of this rule (half-set-folded,
// bits-one-word) must make it fail, which the second test shows.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include "checker/lockstep/lockstep.h"
#include "impl/feature_flags.h"
#include "impl/table.h"
#include "model/actions.h"
#include "model/state.h"
#include "tests/impl/world_fixture.h"

namespace memwal {
namespace {

// Flags apply_feature_flags re-derives from the manifest's content (none of
// which the head has), so whatever the head's words say of them is dropped.
constexpr uint64_t kDerivedFlags[] = {impl::kFlagDeletionFiles,
                                      impl::kFlagBasePaths,
                                      impl::kFlagDisableTransactionFile};

struct Words {
  bool reader_bit = false;
  bool writer_bit = false;
  uint64_t reader_extra = 0;
  uint64_t writer_extra = 0;
};

struct Input {
  model::Protocol protocol = model::Protocol::kDerived;
  uint32_t model_bugs = 0;      // both sides
  uint32_t impl_only_bugs = 0;  // the implementation only
  Words head;
  bool activate = false;  // else an Append
};

// What one side did: refused somewhere, or published with these two bits.
struct Result {
  bool published = false;
  bool reader_bit = false;
  bool writer_bit = false;
  friend bool operator==(const Result&, const Result&) = default;
};

std::string Describe(const Result& result) {
  if (!result.published) return "refused";
  return std::string("published with reader bit ") +
         (result.reader_bit ? "1" : "0") + ", writer bit " +
         (result.writer_bit ? "1" : "0");
}

model::Config ConfigOf(const Input& input) {
  model::Config config;
  config.protocol = input.protocol;
  config.bugs = input.model_bugs;
  config.bounds = model::TinyBounds();
  return config;
}

model::Action BeginOf(const Input& input) {
  if (input.activate) return model::Activate{};
  return model::Append{};
}

Result ModelSide(const Input& input) {
  const model::Config config = ConfigOf(input);
  model::State state = model::Init(config.bounds);
  model::MutableHead(state).reader_bit = input.head.reader_bit;
  model::MutableHead(state).writer_bit = input.head.writer_bit;
  const model::Action begin = BeginOf(input);
  if (!model::IsEnabled(config, state, begin)) return Result{};
  model::Outcome outcome{};
  state = model::Apply(config, state, begin, &outcome);
  const model::Action commit = model::Commit{.slot = 0};
  if (!model::IsEnabled(config, state, commit)) return Result{};
  state = model::Apply(config, state, commit, &outcome);
  if (outcome != model::Outcome::kPublished) return Result{};
  const model::Version& head = model::Head(state);
  return Result{.published = true,
                .reader_bit = head.reader_bit,
                .writer_bit = head.writer_bit};
}

Result ImplSide(const Input& input) {
  checker::lockstep::LockstepSetup setup;
  setup.config = ConfigOf(input);
  setup.impl_only_bugs = input.impl_only_bugs;
  setup.seed = 11;
  ::memwal::Result<impl::World> made = checker::lockstep::InitWorld(setup);
  MEMWAL_ASSERT(made.ok());
  impl::World world = std::move(made).value();
  const Words words = input.head;
  impl::testing::PublishForeign(world, [words](impl::ManifestFile* file) {
    const uint64_t bit = impl::kFlagMemWalIndexCatchup;
    file->manifest.set_reader_feature_flags((words.reader_bit ? bit : 0) |
                                            words.reader_extra);
    file->manifest.set_writer_feature_flags((words.writer_bit ? bit : 0) |
                                            words.writer_extra);
  });
  const uint64_t before = impl::testing::Head(world).number;
  const auto begun = checker::lockstep::ApplyToWorld(BeginOf(input), &world);
  if (!begun.ok() || *begun == model::Outcome::kRefused) return Result{};
  if (world.inflight_count() == 0) return Result{};
  const auto committed =
      checker::lockstep::ApplyToWorld(model::Commit{.slot = 0}, &world);
  if (!committed.ok() || *committed != model::Outcome::kPublished) {
    return Result{};
  }
  const uint64_t head = impl::testing::Head(world).number;
  MEMWAL_ASSERT(head == before + 1);
  impl::PrefixedStore table(world.mutable_store(), world.table_root());
  const ::memwal::Result<impl::Snapshot> snapshot =
      impl::LoadVersion(table, nullptr, head, /*allow_half_set=*/true);
  MEMWAL_ASSERT(snapshot.ok());
  const impl::CatchupBits bits =
      impl::ReadCatchupBits(snapshot->file->manifest);
  return Result{
      .published = true, .reader_bit = bits.reader, .writer_bit = bits.writer};
}

uint64_t RandomExtra() {
  uint64_t extra = 0;
  for (const uint64_t flag : kDerivedFlags) {
    if (*rc::gen::arbitrary<bool>()) extra |= flag;
  }
  return extra;
}

Input RandomInput() {
  Input input;
  input.protocol = *rc::gen::element(
      model::Protocol::kLegacy, model::Protocol::kAdvance,
      model::Protocol::kDerived, model::Protocol::kUnconditional);
  if (*rc::gen::arbitrary<bool>()) {
    input.model_bugs |= model::BugBit(model::Bug::kBitDroppedByNewFromPrevious);
  }
  if (*rc::gen::arbitrary<bool>()) {
    input.model_bugs |= model::BugBit(model::Bug::kBitClearedBySecondApply);
  }
  input.head.reader_bit = *rc::gen::arbitrary<bool>();
  input.head.writer_bit = *rc::gen::arbitrary<bool>();
  input.head.reader_extra = RandomExtra();
  input.head.writer_extra = RandomExtra();
  input.activate = *rc::gen::arbitrary<bool>();
  return input;
}

RC_GTEST_PROP(RuleFunctions,
              TheFeatureWordsOfTheImplementationAreTheModelsOnAnyHeadWords,
              ()) {
  const Input input = RandomInput();
  const Result model_result = ModelSide(input);
  const Result impl_result = ImplSide(input);
  RC_TAG(Describe(model_result));
  RC_ASSERT(impl_result == model_result);
}

// Every head the property draws (bit pattern x derived flags x begin), for one
// protocol and bug set: the first input on which the sides differ, if any.
std::optional<std::string> FirstDifference(model::Protocol protocol,
                                           uint32_t impl_only_bugs) {
  for (int pattern = 0; pattern < 4; ++pattern) {
    for (const bool activate : {false, true}) {
      Input input;
      input.protocol = protocol;
      input.impl_only_bugs = impl_only_bugs;
      input.head.reader_bit = (pattern & 1) != 0;
      input.head.writer_bit = (pattern & 2) != 0;
      input.activate = activate;
      const Result model_result = ModelSide(input);
      const Result impl_result = ImplSide(input);
      if (model_result == impl_result) continue;
      return "head bits " + std::to_string(pattern) +
             (activate ? ", Activate" : ", Append") + ": model " +
             Describe(model_result) + ", implementation " +
             Describe(impl_result);
    }
  }
  return std::nullopt;
}

TEST(RuleFunctions,
     TheFeatureWordComparisonAgreesOnEveryHeadPatternWithoutBugs) {
  for (const model::Protocol protocol :
       {model::Protocol::kLegacy, model::Protocol::kAdvance,
        model::Protocol::kDerived, model::Protocol::kUnconditional}) {
    const std::optional<std::string> difference = FirstDifference(protocol, 0);
    EXPECT_FALSE(difference.has_value()) << *difference;
  }
}

TEST(RuleFunctions,
     TheFeatureWordComparisonCatchesEachImplementationOnlyBitBug) {
  for (const model::Bug bug :
       {model::Bug::kHalfSetFolded, model::Bug::kBitsOneWord}) {
    const std::optional<std::string> difference =
        FirstDifference(model::Protocol::kDerived, model::BugBit(bug));
    EXPECT_TRUE(difference.has_value()) << model::Info(bug).name;
    if (difference) {
      std::cout << model::Info(bug).name << ": " << *difference << "\n";
    }
  }
}

}  // namespace
}  // namespace memwal
