// MemoryStore: an in-memory Store whose copy is cheap. Objects are immutable
// shared blobs in an ordered map (ObjectMap), and the map itself is shared
// between copies until one of them changes (copy on write): copying a store
// takes a reference, the first change after a copy copies the map's vector of
// shared (path, blob) pairs (sharing every pair, so no path is copied). The
// checker copies whole worlds at every search step, and the refusal tries
// (checker/lockstep/refusals.cc) copy one that the refused actions never
// change. Not thread-safe; copies are independent.
//
// Epoch: a number that names the store's contents. A new store and every
// change (Put, a PutIfAbsent that writes, a Delete that removes) take a
// number no store of this process has had; a copy keeps its source's. So two
// stores with one epoch hold the same objects, and a decoding of the contents
// may be cached by epoch (impl/world_cache.cc).
//
// The same holds per part: the MemWAL's objects (a path with a `_mem_wal/`
// directory, format.h's kMemWalDir) and the rest (the table's). A change takes
// a new number for its part too, so a flush or a retirement leaves the table's
// epoch alone and a commit the WAL's: the decodings of the part a step did
// not touch stay cached.
//
// Inside the table's part, the manifests (a path with a `_versions/`
// directory, retained or archived) have an epoch of their own too: a begin
// that writes a data file leaves the decodings of the version list and the
// head alone.
#ifndef MEMWAL_IMPL_MEMORY_STORE_H_
#define MEMWAL_IMPL_MEMORY_STORE_H_

#include <compare>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/assert.h"
#include "impl/store.h"

namespace memwal::impl {

// A store's objects: (path, blob) in path order, with std::map's read
// interface (find, lower_bound, at, iteration over pairs). Each pair is shared
// between the maps that hold it, so copying the map (a store's first change
// after a World copy, at every search step) takes a reference per object
// instead of allocating and copying every path; a change replaces one pair.
class ObjectMap {
 public:
  using key_type = std::string;
  using mapped_type = Blob;
  using value_type = std::pair<const std::string, Blob>;
  // What the store keeps beside an object, worked out once when it is put:
  // its part (MemoryStore's epochs) and, outside the MemWAL's part, the
  // XXH3-128 hash of its bytes (its share of MemoryStore::table_digest).
  struct Facts {
    bool wal = false;
    bool versions = false;
    uint64_t low = 0;
    uint64_t high = 0;
  };
  struct Object : value_type {
    Object(const std::string& path, Blob blob, const Facts& its_facts)
        : value_type(path, std::move(blob)), facts(its_facts) {}
    Facts facts;
  };
  using Entry = std::shared_ptr<const Object>;

  class const_iterator {
   public:
    using iterator_category = std::random_access_iterator_tag;
    using value_type = ObjectMap::value_type;
    using difference_type = std::ptrdiff_t;
    using pointer = const value_type*;
    using reference = const value_type&;

    const_iterator() = default;
    reference operator*() const { return **at_; }
    pointer operator->() const { return at_->get(); }
    reference operator[](difference_type n) const { return *at_[n]; }
    const_iterator& operator++() {
      ++at_;
      return *this;
    }
    const_iterator operator++(int) { return const_iterator(at_++); }
    const_iterator& operator--() {
      --at_;
      return *this;
    }
    const_iterator operator--(int) { return const_iterator(at_--); }
    const_iterator& operator+=(difference_type n) {
      at_ += n;
      return *this;
    }
    const_iterator& operator-=(difference_type n) {
      at_ -= n;
      return *this;
    }
    friend const_iterator operator+(const_iterator it, difference_type n) {
      return it += n;
    }
    friend const_iterator operator+(difference_type n, const_iterator it) {
      return it += n;
    }
    friend const_iterator operator-(const_iterator it, difference_type n) {
      return it -= n;
    }
    friend difference_type operator-(const_iterator a, const_iterator b) {
      return a.at_ - b.at_;
    }
    friend auto operator<=>(const const_iterator&,
                            const const_iterator&) = default;
    friend bool operator==(const const_iterator&,
                           const const_iterator&) = default;

   private:
    friend class ObjectMap;
    using Base = std::vector<Entry>::const_iterator;
    explicit const_iterator(Base at) : at_(at) {}
    Base at_{};
  };
  using iterator = const_iterator;

  const_iterator begin() const { return const_iterator(entries_.begin()); }
  const_iterator end() const { return const_iterator(entries_.end()); }
  std::size_t size() const { return entries_.size(); }
  bool empty() const { return entries_.empty(); }
  // The first object whose path is not less than `path`.
  const_iterator lower_bound(std::string_view path) const {
    return const_iterator(LowerBound(path));
  }
  const_iterator find(std::string_view path) const {
    const auto at = LowerBound(path);
    return const_iterator(
        at != entries_.end() && (*at)->first == path ? at : entries_.end());
  }
  std::size_t count(std::string_view path) const {
    return find(path) == end() ? 0 : 1;
  }
  // The blob at `path`, which must be there (asserted).
  const Blob& at(std::string_view path) const {
    const const_iterator it = find(path);
    MEMWAL_ASSERT(it != end());
    return it->second;
  }

  // The object at `path`, or null.
  const Object* Find(std::string_view path) const {
    const auto at = LowerBound(path);
    return at != entries_.end() && (*at)->first == path ? at->get() : nullptr;
  }
  // An object outside the MemWAL's part that holds `blob` itself, or null.
  const Object* FindTableBlob(const std::string* blob) const;
  // Puts `blob` at `path` (a new pair; the one it replaces stays with the
  // maps that share it). Returns the object it replaced, or null.
  Entry Set(const std::string& path, Blob blob, const Facts& facts);
  // Removes `path`; returns the object removed, or null.
  Entry Erase(std::string_view path);

 private:
  std::vector<Entry>::const_iterator LowerBound(std::string_view path) const;
  std::vector<Entry> entries_;
};

class MemoryStore final : public Store {
 public:
  MemoryStore() = default;
  // A move is a copy (a reference taken), so a moved-from store stays whole.
  MemoryStore(const MemoryStore&) = default;
  MemoryStore& operator=(const MemoryStore&) = default;
  ~MemoryStore() override = default;

  Result<Blob> Get(const std::string& path) const override;
  Status PutIfAbsent(const std::string& path, std::string bytes) override;
  Result<Blob> PutIfAbsentBlob(const std::string& path,
                               std::string bytes) override;
  Status Put(const std::string& path, std::string bytes) override;
  Result<std::vector<std::string>> List(
      const std::string& prefix) const override;
  Status Delete(const std::string& path) override;
  // Put of `blob`'s bytes that shares the blob instead of copying it (so the
  // decodings cached by blob address serve both paths).
  Status PutShared(const std::string& path, Blob blob);
  // Get(from), PutShared(to, that blob), Delete(from) in one change of the
  // map, the object's facts carried over (CleanupVersions moves each old
  // manifest to the archive).
  Status Move(const std::string& from, const std::string& to);
  // Puts `blob` at `path`, which holds the same bytes (asserted) in another
  // blob: the contents, and so the epochs, stay; only which shared copy holds
  // them changes (the checker gives byte-identical tables one copy, so that
  // its decodings kept by blob address serve both).
  void ShareIdentical(const std::string& path, Blob blob);

  // Every object, in path order.
  const ObjectMap& objects() const { return *objects_; }
  uint64_t epoch() const { return epoch_; }
  uint64_t table_epoch() const { return table_epoch_; }
  uint64_t wal_epoch() const { return wal_epoch_; }
  uint64_t versions_epoch() const { return versions_epoch_; }
  // A digest of the table's part (every object outside the MemWAL's part, path
  // and bytes), kept as it changes, whatever the order of the changes: equal
  // parts have equal digests (unequal ones almost never do: a caller that
  // acts on equality compares the bytes).
  std::pair<uint64_t, uint64_t> table_digest() const { return table_digest_; }
  // Whether `path` belongs to the MemWAL's part.
  static bool InWal(const std::string& path);
  // Whether `path` is in a `_versions/` directory.
  static bool InVersions(const std::string& path);

 private:
  using Objects = ObjectMap;
  static uint64_t NextEpoch();
  // The facts of `blob` put at `path`: its bytes hashed only when no object
  // of the table's part holds the same blob (`fresh`: a blob just made, which
  // none holds).
  ObjectMap::Facts FactsOf(const std::string& path, const Blob& blob,
                           bool fresh) const;
  // After a change of an object with `facts`: new numbers for the store and
  // its part.
  void Changed(const ObjectMap::Facts& facts);
  // Adds (`sign` 1) or removes (`sign` -1) an object of the table's part from
  // table_digest_ (nothing for the MemWAL's).
  void Count(const std::string& path, const ObjectMap::Facts& facts, int sign);
  // The map to change: this store's own (copied first if another store shares
  // it).
  Objects& Own();
  std::shared_ptr<Objects> objects_ = std::make_shared<Objects>();
  uint64_t epoch_ = NextEpoch();
  uint64_t table_epoch_ = NextEpoch();
  uint64_t wal_epoch_ = NextEpoch();
  uint64_t versions_epoch_ = NextEpoch();
  std::pair<uint64_t, uint64_t> table_digest_{0, 0};
};

}  // namespace memwal::impl

#endif  // MEMWAL_IMPL_MEMORY_STORE_H_
