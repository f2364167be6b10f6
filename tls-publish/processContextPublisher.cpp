#include "processContextPublisher.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "vtctx/protobufWire.h"
#include "vtctx/utf8.h"

#ifndef PR_SET_VMA
#define PR_SET_VMA 0x53564d41
#endif
#ifndef PR_SET_VMA_ANON_NAME
#define PR_SET_VMA_ANON_NAME 0
#endif
#ifndef MFD_NOEXEC_SEAL
#define MFD_NOEXEC_SEAL 0x0008U
#endif

namespace vtctx {

using wire::ProtobufWriter;

static_assert(sizeof(vtctx_pctx_header) == VTCTX_PCTX_HEADER_SIZE);
static_assert(offsetof(vtctx_pctx_header, signature) == VTCTX_PCTX_OFFSET_SIGNATURE);
static_assert(offsetof(vtctx_pctx_header, version) == VTCTX_PCTX_OFFSET_VERSION);
static_assert(offsetof(vtctx_pctx_header, payload_size) == VTCTX_PCTX_OFFSET_PAYLOAD_SIZE);
static_assert(offsetof(vtctx_pctx_header, published_at_ns) == VTCTX_PCTX_OFFSET_PUBLISHED_AT_NS);
static_assert(offsetof(vtctx_pctx_header, payload) == VTCTX_PCTX_OFFSET_PAYLOAD);
static_assert(sizeof(void*) == 8, "the header's payload field is a 64-bit address");

namespace {

constexpr const char kMappingName[] = "OTEL_CTX";
// Payload arena chunk: room for many typical (< 1 KiB) payloads plus a 64 KiB read margin (see
// StorePayload). Only touched pages become resident.
constexpr size_t kArenaChunkBytes = size_t{256} << 10;  // 256 KiB
static_assert(kArenaChunkBytes >= 2 * VTCTX_PCTX_MAX_PAYLOAD_SIZE);

// Resource, KeyValue and AnyValue field numbers (opentelemetry.proto.common/resource.v1) and
// ProcessContext's (opentelemetry.proto.processcontext.v1development).
enum : uint32_t {
  kProcessContextResource = 1,
  kProcessContextExtraAttributes = 2,
  kResourceAttributes = 1,
  kKeyValueKey = 1,
  kKeyValueValue = 2,
  kAnyValueString = 1,
  kAnyValueArray = 5,
  kArrayValueValues = 1,
};

ProtobufWriter StringValue(std::string_view s) {
  ProtobufWriter any;
  any.String(kAnyValueString, s);
  return any;
}

ProtobufWriter KeyValue(std::string_view key, const ProtobufWriter& any_value) {
  ProtobufWriter kv;
  kv.String(kKeyValueKey, key);
  kv.Message(kKeyValueValue, any_value);
  return kv;
}

std::string CheckString(std::string_view what, std::string_view s) {
  if (s.size() > kMaxPayloadStringSize) {
    return std::string(what) + " is " + std::to_string(s.size()) +
           " bytes (readers accept at most " + std::to_string(kMaxPayloadStringSize) + ")";
  }
  if (!IsValidUtf8(s)) return std::string(what) + " is not valid UTF-8";
  return {};
}

// `kind`: "resource" or "extra", for the message.
std::string CheckAttribute(std::string_view kind, const StringAttribute& a) {
  const std::string name = std::string(kind) + " attribute";
  if (a.key.empty()) return name + " with an empty key";
  if (std::string e = CheckString(name + " key '" + a.key + "'", a.key); !e.empty()) return e;
  return CheckString("value of " + name + " '" + a.key + "'", a.value);
}

uint64_t BoottimeNs() {
  timespec ts{};
  if (clock_gettime(CLOCK_BOOTTIME, &ts) != 0) return 0;
  return static_cast<uint64_t>(ts.tv_sec) * 1000000000u + static_cast<uint64_t>(ts.tv_nsec);
}

// The header's fields are read by other processes at any time: every store is a single aligned
// store of the full field (atomic_ref), never split or merged by the compiler.
template <typename T>
void Store(T& field, T value) {
  std::atomic_ref<T>(field).store(value, std::memory_order_relaxed);
}

}  // namespace

const char* Describe(KeyError error) {
  switch (error) {
    case KeyError::kNone:
      return "ok";
    case KeyError::kNotPublished:
      return "the process context is not published";
    case KeyError::kForked:
      return "this is a forked child: the process context belongs to the parent";
    case KeyError::kEmpty:
      return "empty attribute key";
    case KeyError::kTooLong:
      return "attribute key longer than 255 bytes of UTF-8";
    case KeyError::kInvalidUtf8:
      return "attribute key is not valid UTF-8";
    case KeyError::kTooManyKeys:
      return "255 attribute keys already registered (record key indexes are one byte)";
    case KeyError::kKeyMapFull:
      return "the attribute key map would exceed 16383 encoded bytes (a reader limit)";
    case KeyError::kNoMemory:
      return "cannot map memory for the process-context payload";
  }
  return "unknown error";
}

KeyError ValidateAttributeKey(std::string_view key) {
  if (key.empty()) return KeyError::kEmpty;
  if (key.size() > kMaxAttributeKeySize) return KeyError::kTooLong;
  if (!IsValidUtf8(key)) return KeyError::kInvalidUtf8;
  return KeyError::kNone;
}

std::string EncodeProcessContext(const std::vector<StringAttribute>& resource,
                                 const std::vector<std::string>& attribute_keys, std::string* out,
                                 const std::vector<StringAttribute>& extra) {
  ProtobufWriter resource_message;
  for (const StringAttribute& a : resource) {
    if (std::string e = CheckAttribute("resource", a); !e.empty()) return e;
    resource_message.Message(kResourceAttributes, KeyValue(a.key, StringValue(a.value)));
  }
  ProtobufWriter key_map;
  for (const std::string& key : attribute_keys) {
    if (KeyError error = ValidateAttributeKey(key); error != KeyError::kNone) {
      return "attribute key '" + key + "': " + Describe(error);
    }
    key_map.Message(kArrayValueValues, StringValue(key));
  }
  ProtobufWriter key_map_value;
  key_map_value.Message(kAnyValueArray, key_map);

  ProtobufWriter root;
  root.Message(kProcessContextResource, resource_message);
  root.Message(kProcessContextExtraAttributes,
               KeyValue(kSchemaVersionKey, StringValue(kThreadLocalSchemaVersion)));
  root.Message(kProcessContextExtraAttributes, KeyValue(kAttributeKeyMapKey, key_map_value));
  for (const StringAttribute& a : extra) {
    if (std::string e = CheckAttribute("extra", a); !e.empty()) return e;
    if (a.key.rfind("threadlocal.", 0) == 0) {
      return "extra attribute '" + a.key + "' is in the OTEP's threadlocal.* namespace";
    }
    root.Message(kProcessContextExtraAttributes, KeyValue(a.key, StringValue(a.value)));
  }

  if (root.largest_length() > kMaxPayloadLengthPrefix) {
    return "payload has a " + std::to_string(root.largest_length()) +
           "-byte field (readers accept at most " + std::to_string(kMaxPayloadLengthPrefix) + ")";
  }
  if (root.size() > VTCTX_PCTX_MAX_PAYLOAD_SIZE) return "payload larger than 64 KiB";
  *out = root.data();
  return {};
}

class ProcessContextPublisher::Lock {
 public:
  explicit Lock(pthread_mutex_t* m) : m_(m) { pthread_mutex_lock(m_); }
  ~Lock() { pthread_mutex_unlock(m_); }
  Lock(const Lock&) = delete;
  Lock& operator=(const Lock&) = delete;

 private:
  pthread_mutex_t* m_;
};

// Copies `payload` into the arena. Returns null on success (and sets *stored), else an error.
//
// Invariant: a read of up to VTCTX_PCTX_MAX_PAYLOAD_SIZE bytes starting at any payload ever
// published stays inside mapped memory. A racing reader may pair a new pointer with an old size
// (the two fields are not stored at once); that read is discarded by the timestamp check, but an
// in-process reader must not fault on it first. So a payload is placed only where a full-size read
// from its start still ends inside its chunk.
const char* ProcessContextPublisher::StorePayload(const std::string& payload, const char** stored) {
  constexpr size_t kMaxRead = VTCTX_PCTX_MAX_PAYLOAD_SIZE;
  if (arena_chunk_ == nullptr || arena_chunk_size_ - arena_chunk_used_ < kMaxRead) {
    const size_t size = (kArenaChunkBytes + page_size_ - 1) / page_size_ * page_size_;
    void* chunk = mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (chunk == MAP_FAILED) return Describe(KeyError::kNoMemory);
    // A forked child must not inherit payloads either (it has no header pointing at them).
    (void)madvise(chunk, size, MADV_DONTFORK);
    // The old chunk's tail is abandoned; its payloads stay mapped (see Lifetime).
    arena_chunk_ = static_cast<char*>(chunk);
    arena_chunk_size_ = size;
    arena_chunk_used_ = 0;
  }
  char* p = arena_chunk_ + arena_chunk_used_;
  std::memcpy(p, payload.data(), payload.size());
  // 8-byte alignment is not needed by readers; it just keeps payloads tidy.
  arena_chunk_used_ += (payload.size() + 7) & ~size_t{7};
  arena_used_total_ += payload.size();
  *stored = p;
  return nullptr;
}

void ProcessContextPublisher::NameMapping() {
  // Always called, even where it cannot succeed (memfd mappings, kernels without
  // CONFIG_ANON_VMA_NAME): readers hook this prctl to learn that the context changed.
  named_ = prctl(PR_SET_VMA, PR_SET_VMA_ANON_NAME, reinterpret_cast<unsigned long>(header_),
                 page_size_, reinterpret_cast<unsigned long>(kMappingName)) == 0;
}

uint64_t ProcessContextPublisher::NextTimestamp() const {
  // Readers ignore a context whose timestamp is not greater than the one they last read.
  const uint64_t last =
      header_ ? std::atomic_ref<uint64_t>(header_->published_at_ns).load(std::memory_order_relaxed)
              : 0;
  return std::max(BoottimeNs(), last + 1);
}

std::string ProcessContextPublisher::Publish(const std::vector<StringAttribute>& resource,
                                             const std::vector<std::string>& initial_keys) {
  Lock lock(&mutex_);
  if (header_ != nullptr) return "the process context is already published";
  std::vector<std::string> keys;
  for (const std::string& key : initial_keys) {
    if (std::find(keys.begin(), keys.end(), key) == keys.end()) keys.push_back(key);
  }
  if (keys.size() > kMaxAttributeKeys) return Describe(KeyError::kTooManyKeys);
  std::string payload;
  if (std::string error = EncodeProcessContext(resource, keys, &payload, config_.extra_attributes);
      !error.empty()) {
    return error;
  }

  const long page = sysconf(_SC_PAGESIZE);
  page_size_ = page > 0 ? static_cast<size_t>(page) : 4096;
  const char* stored = nullptr;
  if (const char* error = StorePayload(payload, &stored)) return error;

  // One page: readers look for a one-page mapping, and the header needs only 32 bytes of it.
  void* mapping = MAP_FAILED;
  MappingKind kind = MappingKind::kNone;
  if (config_.allow_memfd) {
    int fd = memfd_create(kMappingName, MFD_CLOEXEC | MFD_ALLOW_SEALING | MFD_NOEXEC_SEAL);
    if (fd < 0 && errno == EINVAL) fd = memfd_create(kMappingName, MFD_CLOEXEC | MFD_ALLOW_SEALING);
    if (fd >= 0) {
      if (ftruncate(fd, static_cast<off_t>(page_size_)) == 0) {
        // Nobody may resize it under our mapping (which would turn reads into SIGBUS).
        (void)fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL);
        mapping = mmap(nullptr, page_size_, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
        kind = MappingKind::kMemfd;
      }
      close(fd);
    }
  }
  if (mapping == MAP_FAILED) {
    mapping = mmap(nullptr, page_size_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    kind = MappingKind::kAnonymous;
  }
  if (mapping == MAP_FAILED) {
    return std::string("cannot map the process-context page: ") + std::strerror(errno);
  }
  if (madvise(mapping, page_size_, MADV_DONTFORK) != 0) {
    const int err = errno;
    munmap(mapping, page_size_);
    return std::string("madvise(MADV_DONTFORK) failed: ") + std::strerror(err);
  }

  header_ = static_cast<vtctx_pctx_header*>(mapping);
  kind_ = kind;
  std::memcpy(header_->signature, VTCTX_PCTX_SIGNATURE, VTCTX_PCTX_SIGNATURE_SIZE);
  Store<uint32_t>(header_->version, VTCTX_PCTX_VERSION);
  Store<uint32_t>(header_->payload_size, static_cast<uint32_t>(payload.size()));
  Store<uint64_t>(header_->payload, reinterpret_cast<uint64_t>(stored));
  // Everything above is visible before the timestamp that declares the context complete.
  std::atomic_thread_fence(std::memory_order_seq_cst);
  Store<uint64_t>(header_->published_at_ns, NextTimestamp());
  NameMapping();

  if (kind_ == MappingKind::kAnonymous && !named_) {
    // An unnamed anonymous page is invisible to readers (OTEP 4719: publication failed).
    munmap(mapping, page_size_);
    header_ = nullptr;
    kind_ = MappingKind::kNone;
    return "memfd_create refused and the kernel cannot name anonymous mappings "
           "(CONFIG_ANON_VMA_NAME): readers could not find the context";
  }
  publisher_pid_ = getpid();
  publications_ = 1;
  resource_ = resource;
  keys_ = std::move(keys);
  key_count_.store(keys_.size(), std::memory_order_release);
  return {};
}

ProcessContextPublisher::KeyResult ProcessContextPublisher::RegisterKey(std::string_view key) {
  Lock lock(&mutex_);
  if (header_ == nullptr) return {-1, KeyError::kNotPublished};
  if (getpid() != publisher_pid_) return {-1, KeyError::kForked};
  for (size_t i = 0; i < keys_.size(); ++i) {
    if (keys_[i] == key) return {static_cast<int>(i), KeyError::kNone};
  }
  if (KeyError error = ValidateAttributeKey(key); error != KeyError::kNone) return {-1, error};
  if (keys_.size() >= kMaxAttributeKeys) return {-1, KeyError::kTooManyKeys};

  keys_.emplace_back(key);
  if (!RepublishLocked()) {
    keys_.pop_back();
    return {-1, last_store_failed_ ? KeyError::kNoMemory : KeyError::kKeyMapFull};
  }
  // Only now may records use the new index: every reader that can see it can name it.
  key_count_.store(keys_.size(), std::memory_order_release);
  return {static_cast<int>(keys_.size() - 1), KeyError::kNone};
}

std::string ProcessContextPublisher::UpdateResource(const std::vector<StringAttribute>& resource) {
  Lock lock(&mutex_);
  if (header_ == nullptr) return "the process context is not published";
  if (getpid() != publisher_pid_) return "a forked child cannot update its parent's context";
  if (resource == resource_) return {};
  std::vector<StringAttribute> previous = std::move(resource_);
  resource_ = resource;
  if (!RepublishLocked()) {
    resource_ = std::move(previous);
    return last_store_failed_ ? "no memory for the payload" : "the payload breaks a reader limit";
  }
  return {};
}

bool ProcessContextPublisher::RepublishLocked() {
  std::string payload;
  const std::string error =
      EncodeProcessContext(resource_, keys_, &payload, config_.extra_attributes);
  const char* stored = nullptr;
  last_store_failed_ = false;
  if (!error.empty()) return false;
  if (StorePayload(payload, &stored) != nullptr) {
    last_store_failed_ = true;
    return false;
  }
  // Update protocol (OTEP 4719).
  const uint64_t published_at = NextTimestamp();
  Store<uint64_t>(header_->published_at_ns, 0);  // update in progress
  std::atomic_thread_fence(std::memory_order_seq_cst);
  Store<uint64_t>(header_->payload, reinterpret_cast<uint64_t>(stored));
  Store<uint32_t>(header_->payload_size, static_cast<uint32_t>(payload.size()));
  std::atomic_thread_fence(std::memory_order_seq_cst);
  Store<uint64_t>(header_->published_at_ns, published_at);
  NameMapping();
  ++publications_;
  return true;
}

std::vector<std::string> ProcessContextPublisher::keys() const {
  Lock lock(&mutex_);
  return keys_;
}

}  // namespace vtctx
