// On-store format; see format.h for the layout and the names.
#include "impl/format.h"

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>
#include <google/protobuf/unknown_field_set.h>

#include <array>
#include <cinttypes>
#include <cstdio>
#include <limits>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "impl/bitmap.h"

namespace memwal::impl {
namespace {

constexpr std::string_view kMagic = "LANC";
constexpr uint16_t kMajorVersion = 0;
constexpr uint16_t kMinorVersion = 2;
constexpr size_t kFooterSize = 16;
constexpr size_t kUuidSize = 16;

void AppendLe(std::string* out, uint64_t value, int bytes) {
  for (int i = 0; i < bytes; ++i)
    out->push_back(static_cast<char>((value >> (8 * i)) & 0xff));
}

uint64_t ReadLe(std::string_view bytes, size_t at, int width) {
  MEMWAL_ASSERT(at + static_cast<size_t>(width) <= bytes.size());
  uint64_t value = 0;
  for (int i = 0; i < width; ++i) {
    value |= uint64_t{static_cast<uint8_t>(bytes[at + static_cast<size_t>(i)])}
             << (8 * i);
  }
  return value;
}

void AppendBytes(std::string* out, std::string_view bytes) {
  MEMWAL_ASSERT(bytes.size() <= std::numeric_limits<uint32_t>::max());
  AppendLe(out, bytes.size(), 4);
  out->append(bytes);
}

// Appends `message` length-prefixed, serialized in place; `size` is its
// ByteSizeLong() (which cached the sizes the serialization uses). The bytes are
// SerializeAsString's.
void AppendMessage(std::string* out,
                   const google::protobuf::MessageLite& message, size_t size) {
  MEMWAL_ASSERT(size <= std::numeric_limits<uint32_t>::max());
  AppendLe(out, size, 4);
  const size_t at = out->size();
  out->resize(at + size);
  auto* const target = reinterpret_cast<uint8_t*>(out->data() + at);
  MEMWAL_ASSERT(message.SerializeWithCachedSizesToArray(target) ==
                target + size);
}

// Parses the length-prefixed message at `at` that must end at or before
// `limit`.
Status ReadMessage(std::string_view bytes, uint64_t at, uint64_t limit,
                   const char* what, google::protobuf::MessageLite* message) {
  if (at > limit || limit - at < 4)
    return Status::Corruption(std::string(what) + " offset");
  const uint64_t size = ReadLe(bytes, at, 4);
  if (size > limit - at - 4)
    return Status::Corruption(std::string(what) + " overruns");
  if (!message->ParseFromArray(bytes.data() + at + 4, static_cast<int>(size))) {
    return Status::Corruption(std::string(what) + " does not parse");
  }
  return Status::Ok();
}

Status CheckUuid(const pb::UUID& uuid, const char* what) {
  if (uuid.uuid().size() != kUuidSize) {
    return Status::Corruption(std::string(what) + ": uuid is not 16 bytes");
  }
  return Status::Ok();
}

// The values met so far, for duplicate checks: views into the message being
// checked (which outlives the check), compared in place while few, through a
// set beyond that (so that a long untrusted list stays n log n).
class SeenValues {
 public:
  // False if `value` was met before.
  bool Insert(std::string_view value) {
    if (count_ < kFew) {
      for (size_t k = 0; k < count_; ++k) {
        if (few_[k] == value) return false;
      }
      few_[count_++] = value;
      return true;
    }
    if (many_.empty()) many_.insert(few_.begin(), few_.end());
    return many_.insert(value).second;
  }

 private:
  static constexpr size_t kFew = 16;
  std::array<std::string_view, kFew> few_{};
  size_t count_ = 0;
  std::set<std::string_view> many_;
};

Status CheckShardList(
    const google::protobuf::RepeatedPtrField<pb::CompactedSsTable>& list,
    const char* what) {
  SeenValues shards;
  for (const pb::CompactedSsTable& entry : list) {
    MEMWAL_RETURN_IF_ERROR(CheckUuid(entry.shard_id(), what));
    if (!shards.Insert(entry.shard_id().uuid())) {
      return Status::Corruption(std::string(what) + ": duplicate shard");
    }
  }
  return Status::Ok();
}

Status CheckDetails(const pb::MemWalIndexDetails& details) {
  MEMWAL_RETURN_IF_ERROR(
      CheckShardList(details.compacted_sstables(), "compacted_sstables"));
  SeenValues names;
  for (const pb::IndexCatchupProgress& progress : details.index_catchup()) {
    if (!names.Insert(progress.index_name())) {
      return Status::Corruption("index_catchup: duplicate index " +
                                progress.index_name());
    }
    MEMWAL_RETURN_IF_ERROR(
        CheckShardList(progress.caught_up_generations(), "index_catchup"));
  }
  return Status::Ok();
}

// The last unpacking of MemWalIndexDetails per slot, by the exact bytes of the
// index_details value, with its check: a table's versions carry the same few
// details over and over (a commit checks what it writes, and builds and views
// unpack the head's), and a parse costs far more than a lookup. One per
// thread; a reference it gives is valid until the thread's next Get.
class DetailsMemo {
 public:
  struct Unpacked {
    Result<pb::MemWalIndexDetails> details =
        Status::Corruption("MemWalIndexDetails not unpacked");
    Status checked;  // details' status, else CheckDetails of them
  };

  const Unpacked& Get(std::string_view value) {
    if (value.size() > kBytesMax) {
      uncached_ = Unpack(value);
      return uncached_;
    }
    Slot& slot = slots_[std::hash<std::string_view>{}(value) % kSlots];
    if (!slot.filled || slot.bytes != value) {
      slot.bytes.assign(value);
      slot.unpacked = Unpack(value);
      slot.filled = true;
    }
    return slot.unpacked;
  }

 private:
  static Unpacked Unpack(std::string_view value) {
    pb::MemWalIndexDetails details;
    if (!details.ParseFromArray(value.data(), static_cast<int>(value.size())))
      return Unpacked{Status::Corruption("MemWalIndexDetails do not parse"),
                      Status::Corruption("MemWalIndexDetails do not parse")};
    Status checked = CheckDetails(details);
    return Unpacked{std::move(details), std::move(checked)};
  }

  static constexpr std::size_t kBytesMax = 1024;
  static constexpr std::size_t kSlots = 64;
  struct Slot {
    std::string bytes;
    bool filled = false;
    Unpacked unpacked;
  };
  std::array<Slot, kSlots> slots_{};
  Unpacked uncached_;
};

DetailsMemo& ThreadDetails() {
  thread_local DetailsMemo memo;
  return memo;
}

Status CheckDetailsType(const pb::IndexMetadata& index) {
  constexpr std::string_view kType = "MemWalIndexDetails";
  const std::string& url = index.index_details().type_url();
  if (url.size() < kType.size() ||
      url.substr(url.size() - kType.size()) != kType) {
    return Status::Corruption("__lance_mem_wal details have type " + url);
  }
  return Status::Ok();
}

// UnpackMemWalDetails(index) and CheckDetails of them, without the copy.
Status CheckMemWalDetails(const pb::IndexMetadata& index) {
  MEMWAL_RETURN_IF_ERROR(CheckDetailsType(index));
  return ThreadDetails().Get(index.index_details().value()).checked;
}

Status CheckIndexes(const pb::IndexSection& section) {
  SeenValues uuids;
  int system_indexes = 0;
  for (const pb::IndexMetadata& index : section.indices()) {
    MEMWAL_RETURN_IF_ERROR(CheckUuid(index.uuid(), "index"));
    if (!uuids.Insert(index.uuid().uuid())) {
      return Status::Corruption("index section: duplicate segment uuid");
    }
    MEMWAL_RETURN_IF_ERROR(
        DecodeFragmentBitmap(index.fragment_bitmap()).status());
    if (!IsMemWalIndex(index)) continue;
    ++system_indexes;
    MEMWAL_RETURN_IF_ERROR(CheckMemWalDetails(index));
  }
  if (system_indexes > 1)
    return Status::Corruption("more than one __lance_mem_wal index");
  return Status::Ok();
}

Status CheckFragments(const pb::Manifest& manifest) {
  uint64_t previous = 0;
  for (int i = 0; i < manifest.fragments_size(); ++i) {
    const uint64_t id = manifest.fragments(i).id();
    if (i > 0 && id <= previous)
      return Status::Corruption("fragment ids not ascending");
    if (manifest.has_max_fragment_id() && id > manifest.max_fragment_id()) {
      return Status::Corruption("fragment id above max_fragment_id");
    }
    previous = id;
  }
  return Status::Ok();
}

// Lance's operation oneof spans field numbers 100..199; this schema models only
// the operations the protocol needs. An operation it does not model (e.g.
// ReserveFragments 107, Project 109, DataReplacement 111; UpdateConfig 110,
// which LanceDB writes for setUnenforcedPrimaryKey, is now modelled) parses
// into the unknown fields and is still an operation, so the transaction is
// valid.
bool HasUnmodelledOperation(const pb::Transaction& transaction) {
  const google::protobuf::UnknownFieldSet& unknown =
      transaction.GetReflection()->GetUnknownFields(transaction);
  for (int i = 0; i < unknown.field_count(); ++i) {
    const google::protobuf::UnknownField& field = unknown.field(i);
    if (field.type() == google::protobuf::UnknownField::TYPE_LENGTH_DELIMITED &&
        field.number() >= 100 && field.number() < 200) {
      return true;
    }
  }
  return false;
}

// The ManifestFiles this thread's shared decodings let go (ShareManifestFile):
// `full` ones keep their messages' allocations for the next copy or decode,
// `empty` ones are the heap objects a spare was moved out of, for the next
// share. A protobuf move swaps, so both moves below are a few pointer swaps.
struct Spares {
  static constexpr size_t kMost = 512;
  std::vector<std::unique_ptr<ManifestFile>> full;
  std::vector<std::unique_ptr<ManifestFile>> empty;
};

// Null where this thread has none (yet, or any more: a cache torn down after
// them at thread exit lets its decodings go to the heap).
thread_local Spares* live_spares = nullptr;

struct SparesOwner {
  Spares spares;
  SparesOwner() { live_spares = &spares; }
  ~SparesOwner() { live_spares = nullptr; }
};

Spares& ThreadSpares() {
  thread_local SparesOwner owner;
  MEMWAL_ASSERT(live_spares == &owner.spares);
  return owner.spares;
}

// A ManifestFile whose messages may hold another file's contents (each use
// overwrites or clears every part), or a new one.
ManifestFile TakeSpare() {
  Spares& spares = ThreadSpares();
  if (spares.full.empty()) return ManifestFile();
  std::unique_ptr<ManifestFile> shell = std::move(spares.full.back());
  spares.full.pop_back();
  ManifestFile file = std::move(*shell);
  if (spares.empty.size() < Spares::kMost)
    spares.empty.push_back(std::move(shell));
  return file;
}

void LetGo(const ManifestFile* file) {
  std::unique_ptr<ManifestFile> owned(const_cast<ManifestFile*>(file));
  if (live_spares != nullptr && live_spares->full.size() < Spares::kMost)
    live_spares->full.push_back(std::move(owned));
}

}  // namespace

ManifestFile CopyWithTransaction(const ManifestFile& file,
                                 const pb::Transaction* transaction) {
  ManifestFile copy = TakeSpare();
  copy.manifest.CopyFrom(file.manifest);
  copy.index_section.CopyFrom(file.index_section);
  if (transaction == nullptr) {
    copy.transaction.reset();
  } else {
    copy.transaction.emplace(*transaction);
  }
  return copy;
}

ManifestFile CopyWithSharedTransaction(
    const ManifestFile& file,
    std::shared_ptr<const pb::Transaction> transaction) {
  ManifestFile copy = TakeSpare();
  copy.manifest.CopyFrom(file.manifest);
  copy.index_section.CopyFrom(file.index_section);
  copy.transaction = TransactionSlot(std::move(transaction));
  return copy;
}

const pb::Transaction& TransactionSlot::value() const {
  MEMWAL_ASSERT(shared_ != nullptr);
  return *shared_;
}

pb::Transaction* TransactionSlot::Mutable() {
  MEMWAL_ASSERT(shared_ != nullptr);
  if (!owned_ || shared_.use_count() > 1) {
    shared_ = std::make_shared<pb::Transaction>(*shared_);
    owned_ = true;
  }
  // Made by this slot (make_shared of a non-const message) and not shared.
  return const_cast<pb::Transaction*>(shared_.get());
}

pb::Transaction& TransactionSlot::emplace() {
  if (owned_ && shared_ != nullptr && shared_.use_count() == 1) {
    pb::Transaction* own = const_cast<pb::Transaction*>(shared_.get());
    own->Clear();
    return *own;
  }
  shared_ = std::make_shared<pb::Transaction>();
  owned_ = true;
  return *const_cast<pb::Transaction*>(shared_.get());
}

pb::Transaction& TransactionSlot::emplace(const pb::Transaction& transaction) {
  pb::Transaction& own = emplace();
  own.CopyFrom(transaction);
  return own;
}

ManifestFile CopyWithoutTransaction(const ManifestFile& file) {
  return CopyWithTransaction(file, nullptr);
}

std::shared_ptr<const ManifestFile> ShareManifestFile(ManifestFile file) {
  Spares& spares = ThreadSpares();
  std::unique_ptr<ManifestFile> shell;
  if (spares.empty.empty()) {
    shell = std::make_unique<ManifestFile>(std::move(file));
  } else {
    shell = std::move(spares.empty.back());
    spares.empty.pop_back();
    *shell = std::move(file);
  }
  return std::shared_ptr<const ManifestFile>(shell.release(), LetGo);
}

std::string EncodeManifestFile(const ManifestFile& file) {
  ManifestFile copy = file;
  return EncodeManifestFileAsDecoded(&copy);
}

std::string EncodeManifestFileAsDecoded(ManifestFile* file) {
  MEMWAL_ASSERT(file != nullptr);
  if (!file->transaction.has_value())
    return EncodeManifestFileAsDecoded(file, std::string_view());
  return EncodeManifestFileAsDecoded(
      file, EncodeTransaction(std::as_const(file->transaction).value()));
}

std::string EncodeManifestFileAsDecoded(ManifestFile* file,
                                        std::string_view transaction_bytes) {
  MEMWAL_ASSERT(file != nullptr);
  MEMWAL_ASSERT(file->transaction.has_value() || transaction_bytes.empty());
  pb::Manifest& manifest = file->manifest;
  manifest.clear_index_section();
  manifest.clear_transaction_section();
  // The blocks' offsets first (the manifest holds them), so that the file is
  // written into one buffer of its final size.
  const bool indexed = file->index_section.indices_size() > 0;
  size_t index_size = 0;
  uint64_t manifest_position = 0;
  if (indexed) {
    manifest.set_index_section(manifest_position);
    index_size = file->index_section.ByteSizeLong();
    manifest_position += 4 + index_size;
  } else {
    file->index_section.Clear();  // Not written: decodes as empty.
  }
  if (file->transaction.has_value()) {
    manifest.set_transaction_section(manifest_position);
    manifest_position += 4 + transaction_bytes.size();
  }
  const size_t manifest_size = manifest.ByteSizeLong();
  std::string out;
  out.reserve(manifest_position + 4 + manifest_size + kFooterSize);
  if (indexed) AppendMessage(&out, file->index_section, index_size);
  if (file->transaction.has_value()) AppendBytes(&out, transaction_bytes);
  MEMWAL_ASSERT(out.size() == manifest_position);
  AppendMessage(&out, manifest, manifest_size);
  AppendLe(&out, manifest_position, 8);
  AppendLe(&out, kMajorVersion, 2);
  AppendLe(&out, kMinorVersion, 2);
  out.append(kMagic);
  MEMWAL_ASSERT(out.size() >= kFooterSize + 4);
  return out;
}

Result<ManifestFile> DecodeManifestFile(std::string_view bytes) {
  if (bytes.size() < kFooterSize)
    return Status::Corruption("manifest file too short");
  const size_t footer = bytes.size() - kFooterSize;
  if (bytes.substr(bytes.size() - 4) != kMagic)
    return Status::Corruption("bad magic");
  if (ReadLe(bytes, footer + 8, 2) != kMajorVersion) {
    return Status::Corruption("unsupported manifest major version");
  }
  // A parse clears its message first, so a spare's contents do not show.
  ManifestFile file = TakeSpare();
  const uint64_t manifest_position = ReadLe(bytes, footer, 8);
  MEMWAL_RETURN_IF_ERROR(ReadMessage(bytes, manifest_position, footer,
                                     "manifest", &file.manifest));
  if (file.manifest.has_index_section()) {
    MEMWAL_RETURN_IF_ERROR(ReadMessage(bytes, file.manifest.index_section(),
                                       manifest_position, "index section",
                                       &file.index_section));
  } else {
    file.index_section.Clear();
  }
  if (file.manifest.has_transaction_section()) {
    MEMWAL_RETURN_IF_ERROR(ReadMessage(
        bytes, file.manifest.transaction_section(), manifest_position,
        "transaction section", &file.transaction.emplace()));
  } else {
    file.transaction.reset();
  }
  MEMWAL_RETURN_IF_ERROR(CheckManifestFile(file));
  return file;
}

Status CheckManifestFile(const ManifestFile& file) {
  MEMWAL_RETURN_IF_ERROR(CheckFragments(file.manifest));
  return CheckIndexes(file.index_section);
}

namespace {

std::string FormatVersionFileName(uint64_t version) {
  // "%020" PRIu64 ".manifest" of the inverted number, without snprintf.
  constexpr std::string_view kSuffix = ".manifest";
  std::string name(kVersionsDir.size() + 20 + kSuffix.size(), '0');
  name.replace(0, kVersionsDir.size(), kVersionsDir);
  uint64_t inverted = std::numeric_limits<uint64_t>::max() - version;
  for (std::size_t k = kVersionsDir.size() + 20; k-- > kVersionsDir.size();) {
    name[k] = static_cast<char>('0' + inverted % 10);
    inverted /= 10;
  }
  MEMWAL_ASSERT(inverted == 0);
  name.replace(kVersionsDir.size() + 20, kSuffix.size(), kSuffix);
  return name;
}

}  // namespace

const std::string& VersionFileNameIn(uint64_t version, std::string* scratch) {
  // A lockstep step names versions thousands of times, and tables keep few:
  // the names of the first versions are formatted once.
  constexpr uint64_t kNamed = 256;
  static const std::vector<std::string> kNames = [] {
    std::vector<std::string> names;
    for (uint64_t v = 0; v < kNamed; ++v)
      names.push_back(FormatVersionFileName(v));
    return names;
  }();
  if (version < kNamed) return kNames[version];
  *scratch = FormatVersionFileName(version);
  return *scratch;
}

std::string VersionFileName(uint64_t version) {
  std::string scratch;
  return VersionFileNameIn(version, &scratch);
}

std::optional<uint64_t> ParseVersionFileName(std::string_view name) {
  if (name.substr(0, kVersionsDir.size()) == kVersionsDir)
    name.remove_prefix(kVersionsDir.size());
  constexpr std::string_view kSuffix = ".manifest";
  if (name.size() != 20 + kSuffix.size() || name.substr(20) != kSuffix)
    return std::nullopt;
  // The inverted numbers of versions 0..615 share their first seventeen
  // digits with u64::MAX = 18446744073709551615, so only the last three are
  // read (a listing parses every name, and tables keep few versions).
  constexpr std::string_view kSmallPrefix = "18446744073709551";
  if (name.substr(0, kSmallPrefix.size()) == kSmallPrefix) {
    uint64_t low = 0;
    for (size_t i = kSmallPrefix.size(); i < 20; ++i) {
      if (name[i] < '0' || name[i] > '9') return std::nullopt;
      low = low * 10 + static_cast<uint64_t>(name[i] - '0');
    }
    if (low > 615) return std::nullopt;  // Past u64::MAX.
    return 615 - low;
  }
  // Nineteen digits cannot overflow (10^19 - 1 < 2^64); the twentieth is
  // checked once. (A division per digit made this a tenth of listing.)
  uint64_t inverted = 0;
  for (size_t i = 0; i < 20; ++i) {
    if (name[i] < '0' || name[i] > '9') return std::nullopt;
  }
  for (size_t i = 0; i < 19; ++i)
    inverted = inverted * 10 + static_cast<uint64_t>(name[i] - '0');
  const uint64_t last = static_cast<uint64_t>(name[19] - '0');
  if (inverted > (std::numeric_limits<uint64_t>::max() - last) / 10)
    return std::nullopt;
  inverted = inverted * 10 + last;
  return std::numeric_limits<uint64_t>::max() - inverted;
}

std::string TransactionFileName(uint64_t read_version, std::string_view uuid) {
  return std::to_string(read_version) + "-" + std::string(uuid) + ".txn";
}

std::string EncodeTransaction(const pb::Transaction& transaction) {
  // Sized first, then written in place (SerializeToCodedStream's bytes).
  const size_t size = transaction.ByteSizeLong();
  MEMWAL_ASSERT(size <= static_cast<size_t>(std::numeric_limits<int>::max()));
  std::string bytes(size, '\0');
  google::protobuf::io::ArrayOutputStream stream(bytes.data(),
                                                 static_cast<int>(size));
  google::protobuf::io::CodedOutputStream coded(&stream);
  coded.SetSerializationDeterministic(
      true);  // The properties map must encode stably.
  transaction.SerializeWithCachedSizes(&coded);
  coded.Trim();
  MEMWAL_ASSERT(!coded.HadError() &&
                static_cast<size_t>(coded.ByteCount()) == size);
  return bytes;
}

Result<pb::Transaction> DecodeTransaction(std::string_view bytes) {
  pb::Transaction transaction;
  if (!transaction.ParseFromArray(bytes.data(),
                                  static_cast<int>(bytes.size()))) {
    return Status::Corruption("transaction does not parse");
  }
  MEMWAL_RETURN_IF_ERROR(CheckTransaction(transaction));
  return transaction;
}

Status CheckTransaction(const pb::Transaction& transaction) {
  if (transaction.operation_case() == pb::Transaction::OPERATION_NOT_SET &&
      !HasUnmodelledOperation(transaction)) {
    return Status::Corruption("transaction has no operation");
  }
  if (transaction.has_update_mem_wal_state() &&
      transaction.update_mem_wal_state().has_require_index_catchup() &&
      !transaction.update_mem_wal_state().require_index_catchup()) {
    // Lance: proto.rs refuses an explicit false ("cannot be false") [P §1.3].
    return Status::InvalidArgument("require_index_catchup cannot be false");
  }
  return Status::Ok();
}

std::string UuidHex(std::string_view raw) {
  MEMWAL_ASSERT(raw.size() == kUuidSize);
  static constexpr char kDigits[] = "0123456789abcdef";
  // 8-4-4-4-12 digits: the 36 characters written in place.
  std::string hex(2 * kUuidSize + 4, '-');
  std::size_t at = 0;
  for (size_t i = 0; i < raw.size(); ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10) ++at;
    const auto byte = static_cast<uint8_t>(raw[i]);
    hex[at++] = kDigits[byte >> 4];
    hex[at++] = kDigits[byte & 15];
  }
  return hex;
}

std::string ShardManifestDir(std::string_view shard_uuid_raw) {
  return std::string(kMemWalDir) + UuidHex(shard_uuid_raw) + "/";
}

std::string ShardManifestPath(std::string_view shard_uuid_raw,
                              uint64_t version) {
  std::string name(64, '0');
  for (int bit = 0; bit < 64; ++bit) {
    if ((version >> bit) & 1)
      name[static_cast<size_t>(bit)] = '1';  // Least significant first.
  }
  return ShardManifestDir(shard_uuid_raw) + "manifest/" + name + ".binpb";
}

std::optional<uint64_t> ParseShardManifestName(std::string_view path) {
  const size_t slash = path.rfind('/');
  if (slash != std::string_view::npos) path.remove_prefix(slash + 1);
  constexpr std::string_view kSuffix = ".binpb";
  if (path.size() != 64 + kSuffix.size() || path.substr(64) != kSuffix)
    return std::nullopt;
  uint64_t version = 0;
  for (size_t bit = 0; bit < 64; ++bit) {
    if (path[bit] != '0' && path[bit] != '1') return std::nullopt;
    if (path[bit] == '1') version |= uint64_t{1} << bit;
  }
  return version;
}

std::string EncodeShardManifest(const pb::ShardManifest& manifest) {
  return manifest.SerializeAsString();
}

Result<pb::ShardManifest> DecodeShardManifest(std::string_view bytes) {
  pb::ShardManifest manifest;
  if (!manifest.ParseFromArray(bytes.data(), static_cast<int>(bytes.size()))) {
    return Status::Corruption("shard manifest does not parse");
  }
  MEMWAL_RETURN_IF_ERROR(CheckShardManifest(manifest));
  return manifest;
}

Status CheckShardManifest(const pb::ShardManifest& manifest) {
  MEMWAL_RETURN_IF_ERROR(CheckUuid(manifest.shard_id(), "shard manifest"));
  if (manifest.current_generation() == 0) {
    return Status::Corruption("shard manifest: generations start at 1");
  }
  for (const pb::SsTable& sstable : manifest.sstables()) {
    if (sstable.generation() == 0 ||
        sstable.generation() >= manifest.current_generation()) {
      return Status::Corruption(
          "shard manifest: sstable generation out of range");
    }
  }
  return Status::Ok();
}

bool IsMemWalIndex(const pb::IndexMetadata& index) {
  return index.name() == kMemWalIndexName;
}

Result<pb::MemWalIndexDetails> UnpackMemWalDetails(
    const pb::IndexMetadata& index) {
  MEMWAL_RETURN_IF_ERROR(CheckDetailsType(index));
  return ThreadDetails().Get(index.index_details().value()).details;
}

void PackMemWalDetails(const pb::MemWalIndexDetails& details,
                       pb::IndexMetadata* index) {
  MEMWAL_ASSERT(index != nullptr);
  // Lance writes the type url without a host:
  // "/lance.table.MemWalIndexDetails".
  MEMWAL_ASSERT(index->mutable_index_details()->PackFrom(details, ""));
}

}  // namespace memwal::impl
