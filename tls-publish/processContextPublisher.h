// OTEP 4719 process context publisher: tells out-of-process readers who this process is (resource
// attributes) and how to read its OTEP 4947 thread context (threadlocal.schema_version and the
// append-only threadlocal.attribute_key_map). Runtime-neutral: no JVMTI. Layout facts live in
// protocol/include/vtctx/processContextHeader.h; the protocol is explained in
// docs/process-context.md.
//
// Mapping: one page from memfd_create("OTEL_CTX") (MFD_CLOEXEC | MFD_ALLOW_SEALING |
// MFD_NOEXEC_SEAL, retried without MFD_NOEXEC_SEAL), mapped PROT_READ|PROT_WRITE MAP_PRIVATE, fd
// closed; an anonymous private page if memfd is refused. madvise(MADV_DONTFORK), then
// prctl(PR_SET_VMA_ANON_NAME, "OTEL_CTX") after every publication (readers hook that prctl). The
// header is the first 32 bytes of the page; the payload lives in a separate payload arena.
//
// Publish: signature, version, size, pointer; seq_cst fence; published_at_ns last.
// Update:  published_at_ns = 0; fence; pointer and size; fence; new published_at_ns (strictly
//          greater than every earlier one: readers skip a context whose timestamp did not grow);
//          prctl again.
// The fences are real CPU fences (not compiler fences): readers are other processes reading this
// memory from other CPUs at any time.
//
// Lifetime: the header page and every payload ever published stay mapped for the life of the
// process; nothing is ever freed. A reader that read the old pointer just before an update can
// therefore always finish reading the old payload (and then discards it because published_at_ns
// changed). The cost is bounded: at most 2 + 255 publications (one per key, one resource
// update), each payload at most
// ~33 KiB by the reader limits below and typically well under 1 KiB, in 256 KiB arena chunks of
// which only touched pages become resident (e.g. 255 keys of ~20 bytes keep ~1 MB of payloads).
//
// Concurrency: Publish() and RegisterKey() may be called from any thread; a mutex serialises them
// (single writer). Not a hot path. key_count() is lock-free for record writers.
//
// Fork: the mapping and payloads are MADV_DONTFORK, so a forked child has no context. A child's
// RegisterKey() fails with kForked instead of touching memory it does not have.
#ifndef VTCTX_TLS_PUBLISH_PROCESS_CONTEXT_PUBLISHER_H_
#define VTCTX_TLS_PUBLISH_PROCESS_CONTEXT_PUBLISHER_H_

#include <pthread.h>
#include <sys/types.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "vtctx/processContextHeader.h"

namespace vtctx {

// The thread-context schema version this writer implements: the ONE place it is spelled (the OTEP
// will rename it `tls_v1`; today's readers accept only this value).
inline constexpr std::string_view kThreadLocalSchemaVersion = VTCTX_PCTX_THREADLOCAL_SCHEMA_VERSION;
inline constexpr std::string_view kSchemaVersionKey = VTCTX_PCTX_KEY_SCHEMA_VERSION;
inline constexpr std::string_view kAttributeKeyMapKey = VTCTX_PCTX_KEY_ATTRIBUTE_KEY_MAP;

// Record key indexes are u8; indexes 0..254 are handed out, so at most 255 keys.
inline constexpr size_t kMaxAttributeKeys = VTCTX_PCTX_MAX_ATTRIBUTE_KEYS;
// Longest attribute key we register, in UTF-8 bytes (keeps the key map far from reader limits).
inline constexpr size_t kMaxAttributeKeySize = 255;

// Limits of the strictest reader we know (the public ctx-sharing-demo decoder): every string at
// most 4096 bytes and every length prefix a varint of at most two bytes (<= 16383). Payloads that
// break them are refused rather than published unreadable.
inline constexpr size_t kMaxPayloadStringSize = 4096;
inline constexpr size_t kMaxPayloadLengthPrefix = 16383;

struct StringAttribute {
  std::string key;
  std::string value;
  friend bool operator==(const StringAttribute&, const StringAttribute&) = default;
};

// Encodes the protobuf ProcessContext payload into `*out`:
//   field 1 Resource { field 1: KeyValue per resource attribute (string values) }
//   field 2 KeyValue { "threadlocal.schema_version", AnyValue.string_value = schema version }
//   field 2 KeyValue { "threadlocal.attribute_key_map", AnyValue.array_value = ArrayValue {
//                      field 1: AnyValue.string_value per key, index = position } }
//   field 2 KeyValue per `extra` attribute (string values), e.g. the writer's version
// (KeyValue = {1: key, 2: AnyValue}; AnyValue.string_value = 1, .array_value = 5.)
// Returns "" on success, else why the payload would be invalid or unreadable (bad UTF-8, empty
// key, reader limits, an extra key in the OTEP's threadlocal.* namespace).
std::string EncodeProcessContext(const std::vector<StringAttribute>& resource,
                                 const std::vector<std::string>& attribute_keys, std::string* out,
                                 const std::vector<StringAttribute>& extra = {});

// Why a key could not be registered. Describe() gives one line for logs.
enum class KeyError {
  kNone,
  kNotPublished,  // Publish() has not succeeded
  kForked,        // called in a forked child: the context belongs to the parent
  kEmpty,
  kTooLong,  // more than kMaxAttributeKeySize bytes
  kInvalidUtf8,
  kTooManyKeys,  // kMaxAttributeKeys already registered
  kKeyMapFull,   // the encoded key map would break a reader limit
  kNoMemory,     // the payload arena could not grow
};
const char* Describe(KeyError error);

// Validates one attribute key (kNone if usable).
KeyError ValidateAttributeKey(std::string_view key);

enum class MappingKind { kNone, kMemfd, kAnonymous };

class ProcessContextPublisher {
 public:
  struct Config {
    bool allow_memfd = true;  // false forces the anonymous-mapping fallback (tests)
    // Extra attributes (ProcessContext field 2) besides the threadlocal.* ones, in every payload.
    std::vector<StringAttribute> extra_attributes;
  };

  ProcessContextPublisher() = default;
  explicit ProcessContextPublisher(Config config) : config_(config) {}
  // Leaves the mapping and payloads in place (see Lifetime above).
  ~ProcessContextPublisher() = default;
  ProcessContextPublisher(const ProcessContextPublisher&) = delete;
  ProcessContextPublisher& operator=(const ProcessContextPublisher&) = delete;

  // Publishes the context once: `resource` attributes plus the thread-local schema version and a
  // key map holding `initial_keys` (duplicates collapse; order = index). Returns "" on success,
  // else one line saying why nothing was published. A second call fails.
  std::string Publish(const std::vector<StringAttribute>& resource,
                      const std::vector<std::string>& initial_keys);

  struct KeyResult {
    int index;       // 0..254, or -1 on error
    KeyError error;  // kNone on success
  };
  // Returns the index of `key` in the key map, appending it (and republishing with the update
  // protocol) if it is new. An index, once given, never changes. Safe from any thread.
  KeyResult RegisterKey(std::string_view key);

  // Republishes with `resource` as the resource attributes (the update protocol), unless they are
  // unchanged. Returns "" on success, else one line saying why the old ones stay. Safe from any
  // thread. (The agent learns the JVM's system properties only after Publish() when it runs
  // without JVMTI.)
  std::string UpdateResource(const std::vector<StringAttribute>& resource);

  // Keys registered so far; an index below this has a name every reader can see (the count is
  // raised only after the payload naming the key is published). Lock-free.
  size_t key_count() const { return key_count_.load(std::memory_order_acquire); }

  // A copy of the key map (index = position).
  std::vector<std::string> keys() const;

  // The header in the published page, or null before Publish() succeeded.
  const vtctx_pctx_header* header() const { return header_; }
  MappingKind mapping_kind() const { return kind_; }
  // Whether the last prctl(PR_SET_VMA_ANON_NAME) succeeded (it cannot for memfd mappings; it
  // needs CONFIG_ANON_VMA_NAME for anonymous ones).
  bool named() const { return named_; }
  // Publications so far (1 after Publish, +1 per new key).
  uint64_t publications() const { return publications_; }
  // Bytes the payload arena holds (every payload ever published).
  size_t payload_bytes() const { return arena_used_total_; }

 private:
  class Lock;
  const char* StorePayload(const std::string& payload, const char** stored);
  // Encodes and publishes resource_ and keys_ (under mutex_); false if nothing changed, with
  // last_store_failed_ telling a full arena from a payload too big for readers.
  bool RepublishLocked();
  void NameMapping();
  uint64_t NextTimestamp() const;

  Config config_;
  mutable pthread_mutex_t mutex_ = PTHREAD_MUTEX_INITIALIZER;
  vtctx_pctx_header* header_ = nullptr;
  size_t page_size_ = 0;
  MappingKind kind_ = MappingKind::kNone;
  bool named_ = false;
  pid_t publisher_pid_ = 0;
  uint64_t publications_ = 0;
  std::vector<StringAttribute> resource_;
  bool last_store_failed_ = false;
  std::vector<std::string> keys_;
  std::atomic<size_t> key_count_{0};
  // Payload arena: page-aligned chunks, MADV_DONTFORK, never unmapped.
  char* arena_chunk_ = nullptr;
  size_t arena_chunk_size_ = 0;
  size_t arena_chunk_used_ = 0;
  size_t arena_used_total_ = 0;
};

}  // namespace vtctx

#endif  // VTCTX_TLS_PUBLISH_PROCESS_CONTEXT_PUBLISHER_H_
