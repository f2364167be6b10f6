// OTEP 4719 process context: the payload encoder (decoded by an independent strict decoder) and
// the publisher (real mappings in this process: maps entry, header, fork, update protocol, limits,
// concurrent appends under a reader that follows the timestamp protocol).
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstring>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "processContextDecoder.h"
#include "processContextPublisher.h"

namespace vtctx {
namespace {

using testing::DecodedContext;
using testing::DecodeProcessContext;

const std::vector<StringAttribute> kResource = {
    {"service.name", "checkout"},
    {"service.instance.id", "6f1f5f4e-2b7a-4c59-9a53-0d7f2b8c1e11"},
    {"telemetry.sdk.language", "java"},
    {"deployment.environment.name", "prod"},
};

// ---------------------------------------------------------------- encoder

TEST(ProcessContextEncoder, DecodesToEveryFieldItWasGiven) {
  std::string payload;
  ASSERT_EQ(EncodeProcessContext(kResource, {"http.route", "user.id", "ünïcødé.key"}, &payload),
            "");
  std::optional<DecodedContext> ctx = DecodeProcessContext(payload);
  ASSERT_TRUE(ctx.has_value());
  ASSERT_EQ(ctx->resource.size(), kResource.size());
  for (size_t i = 0; i < kResource.size(); ++i) {
    EXPECT_EQ(ctx->resource[i].first, kResource[i].key);
    EXPECT_EQ(ctx->resource[i].second, kResource[i].value);
  }
  ASSERT_EQ(ctx->extra.size(), 2u);
  EXPECT_EQ(ctx->extra[0].first, "threadlocal.schema_version");
  EXPECT_FALSE(ctx->extra[0].second.is_array);
  EXPECT_EQ(ctx->extra[0].second.string_value, "tlsdesc_v1_dev");
  EXPECT_EQ(ctx->extra[1].first, "threadlocal.attribute_key_map");
  ASSERT_TRUE(ctx->extra[1].second.is_array);
  EXPECT_EQ(ctx->extra[1].second.array_values,
            (std::vector<std::string>{"http.route", "user.id", "ünïcødé.key"}));
}

// Byte-exact wire format of a minimal payload, worked out by hand from the protobuf encoding rules.
TEST(ProcessContextEncoder, GoldenBytes) {
  std::string payload;
  ASSERT_EQ(EncodeProcessContext({{"a", "b"}}, {}, &payload), "");
  const std::string expected =
      // field 1 Resource (10 bytes) { field 1 KeyValue (8) { key "a", value AnyValue { "b" } } }
      std::string(
          "\x0a\x0a\x0a\x08\x0a\x01"
          "a"
          "\x12\x03\x0a\x01"
          "b",
          12) +
      // field 2 KeyValue (46) { key (26 bytes), value AnyValue (16) { string_value (14 bytes) } }
      std::string("\x12\x2e\x0a\x1a", 4) + "threadlocal.schema_version" +
      std::string("\x12\x10\x0a\x0e", 4) + "tlsdesc_v1_dev" +
      // field 2 KeyValue (35) { key (29 bytes), value AnyValue (2) { array_value (0) {} } }
      std::string("\x12\x23\x0a\x1d", 4) + "threadlocal.attribute_key_map" +
      std::string("\x12\x02\x2a\x00", 4);
  EXPECT_EQ(payload, expected);
}

// proto3 would omit an empty string, but AnyValue.string_value is a oneof member (presence), and
// a reader rejects an AnyValue that holds nothing.
TEST(ProcessContextEncoder, EmptyStringValueIsStillEncoded) {
  std::string payload;
  ASSERT_EQ(EncodeProcessContext({{"empty", ""}}, {}, &payload), "");
  EXPECT_NE(payload.find(std::string("\x0a\x05"
                                     "empty"
                                     "\x12\x02\x0a\x00",
                                     11)),
            std::string::npos);
  std::optional<DecodedContext> ctx = DecodeProcessContext(payload);
  ASSERT_TRUE(ctx.has_value());
  EXPECT_EQ(ctx->Resource("empty"), "");
}

TEST(ProcessContextEncoder, TwoByteLengthsDecode) {
  // A 200-byte value needs a two-byte length varint (0xc8 0x01).
  const std::string value(200, 'v');
  std::string payload;
  ASSERT_EQ(EncodeProcessContext({{"k", value}}, {}, &payload), "");
  EXPECT_NE(payload.find(std::string("\x0a\xc8\x01", 3) + value), std::string::npos);
  std::optional<DecodedContext> ctx = DecodeProcessContext(payload);
  ASSERT_TRUE(ctx.has_value());
  EXPECT_EQ(ctx->Resource("k"), value);
}

TEST(ProcessContextEncoder, RefusesWhatReadersWouldReject) {
  std::string payload = "untouched";
  EXPECT_NE(EncodeProcessContext({{"k", std::string(4097, 'x')}}, {}, &payload).find("4096"),
            std::string::npos);
  EXPECT_NE(EncodeProcessContext({{"k", "\xc3\x28"}}, {}, &payload).find("UTF-8"),
            std::string::npos);
  EXPECT_NE(EncodeProcessContext({{"", "v"}}, {}, &payload).find("empty key"), std::string::npos);
  EXPECT_NE(EncodeProcessContext(kResource, {""}, &payload).find("empty attribute key"),
            std::string::npos);
  // 70 keys of 255 bytes: the key map would need a length prefix above 16383.
  std::vector<std::string> keys;
  for (int i = 0; i < 70; ++i) keys.push_back(std::string(252, 'k') + std::to_string(100 + i));
  EXPECT_NE(EncodeProcessContext(kResource, keys, &payload).find("16383"), std::string::npos);
  // Extra attributes: the same string rules, and the OTEP's threadlocal.* keys are not theirs.
  EXPECT_NE(EncodeProcessContext(kResource, {}, &payload, {{"", "v"}}).find("empty key"),
            std::string::npos);
  EXPECT_NE(EncodeProcessContext(kResource, {}, &payload, {{"k", "\xc3\x28"}}).find("UTF-8"),
            std::string::npos);
  EXPECT_NE(EncodeProcessContext(kResource, {}, &payload, {{"threadlocal.schema_version", "x"}})
                .find("threadlocal.*"),
            std::string::npos);
  EXPECT_EQ(payload, "untouched");
}

TEST(ProcessContextEncoder, ExtraAttributesFollowTheThreadLocalOnes) {
  std::string payload;
  ASSERT_EQ(EncodeProcessContext(kResource, {"http.route"}, &payload, {{"vtctx.version", "9.8.7"}}),
            "");
  std::optional<DecodedContext> ctx = DecodeProcessContext(payload);
  ASSERT_TRUE(ctx.has_value());
  ASSERT_EQ(ctx->extra.size(), 3u);
  EXPECT_EQ(ctx->extra[0].first, "threadlocal.schema_version");
  EXPECT_EQ(ctx->extra[1].first, "threadlocal.attribute_key_map");
  EXPECT_EQ(ctx->extra[2].first, "vtctx.version");
  EXPECT_FALSE(ctx->extra[2].second.is_array);
  EXPECT_EQ(ctx->extra[2].second.string_value, "9.8.7");
  EXPECT_EQ(ctx->resource.size(), kResource.size());  // not a resource attribute
}

// ---------------------------------------------------------------- publisher helpers

std::string ReadFile(const char* path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// The /proc/self/maps line of the mapping that starts at `addr`, or "".
std::string MapsLineAt(const void* addr) {
  char start[32];
  std::snprintf(start, sizeof start, "%lx-", reinterpret_cast<unsigned long>(addr));
  std::istringstream maps(ReadFile("/proc/self/maps"));
  for (std::string line; std::getline(maps, line);) {
    if (line.rfind(start, 0) == 0) return line;
  }
  return "";
}

// The VmFlags of the /proc/self/smaps entry that starts at `addr`, or "".
std::string VmFlagsAt(const void* addr) {
  char start[32];
  std::snprintf(start, sizeof start, "%lx-", reinterpret_cast<unsigned long>(addr));
  std::istringstream smaps(ReadFile("/proc/self/smaps"));
  bool in_entry = false;
  for (std::string line; std::getline(smaps, line);) {
    if (line.find('-') != std::string::npos && line.find(' ') > line.find('-') &&
        std::isxdigit(static_cast<unsigned char>(line[0]))) {
      in_entry = line.rfind(start, 0) == 0;
    } else if (in_entry && line.rfind("VmFlags:", 0) == 0) {
      return line;
    }
  }
  return "";
}

// The mapping name and permissions of a maps line.
struct MapsEntry {
  unsigned long start = 0, end = 0;
  std::string perms, name;
};
MapsEntry ParseMapsLine(const std::string& line) {
  MapsEntry e;
  std::istringstream in(line);
  std::string range, offset, dev, inode;
  in >> range >> e.perms >> offset >> dev >> inode;
  std::getline(in, e.name);
  e.name.erase(0, e.name.find_first_not_of(' '));
  e.start = std::stoul(range.substr(0, range.find('-')), nullptr, 16);
  e.end = std::stoul(range.substr(range.find('-') + 1), nullptr, 16);
  return e;
}

bool AcceptedMappingName(const std::string& name) {
  return name == VTCTX_PCTX_MAPPING_MEMFD || name == VTCTX_PCTX_MAPPING_MEMFD_DELETED ||
         name == VTCTX_PCTX_MAPPING_MEMFD_NAMED || name == VTCTX_PCTX_MAPPING_ANON_NAMED;
}

template <typename T>
T Load(const T& field) {
  return std::atomic_ref<T>(const_cast<T&>(field)).load(std::memory_order_acquire);
}

struct Snapshot {
  uint64_t published_at = 0;
  uint64_t payload_address = 0;
  std::string payload;
};

// One read following the reader protocol: timestamp, header, payload, timestamp again. nullopt if
// an update was in progress or happened meanwhile (a reader retries).
std::optional<Snapshot> TryRead(const vtctx_pctx_header* h) {
  Snapshot s;
  s.published_at = Load(h->published_at_ns);
  if (s.published_at == 0) return std::nullopt;
  s.payload_address = Load(h->payload);
  const uint32_t size = Load(h->payload_size);
  if (size == 0 || size > VTCTX_PCTX_MAX_PAYLOAD_SIZE) return std::nullopt;
  s.payload.assign(reinterpret_cast<const char*>(s.payload_address), size);
  std::atomic_thread_fence(std::memory_order_acquire);
  if (Load(h->published_at_ns) != s.published_at) return std::nullopt;
  return s;
}

Snapshot ReadSettled(const vtctx_pctx_header* h) {
  for (;;) {
    if (std::optional<Snapshot> s = TryRead(h)) return *s;
  }
}

// Whether this kernel names anonymous mappings (CONFIG_ANON_VMA_NAME), probed on a scratch page.
bool KernelNamesAnonymousMappings() {
  void* p = mmap(nullptr, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) return false;
  const bool ok = prctl(0x53564d41 /* PR_SET_VMA */, 0 /* PR_SET_VMA_ANON_NAME */,
                        reinterpret_cast<unsigned long>(p), 4096,
                        reinterpret_cast<unsigned long>("vtctx_probe")) == 0;
  munmap(p, 4096);
  return ok;
}

// ---------------------------------------------------------------- publisher

TEST(ProcessContextPublisher, PublishesOneNamedNonExecutablePage) {
  ProcessContextPublisher p;
  ASSERT_EQ(p.Publish(kResource, {"http.route"}), "");
  ASSERT_NE(p.header(), nullptr);
  const std::string line = MapsLineAt(p.header());
  ASSERT_FALSE(line.empty());
  const MapsEntry e = ParseMapsLine(line);
  EXPECT_TRUE(AcceptedMappingName(e.name)) << line;
  EXPECT_EQ(e.perms.find('x'), std::string::npos) << line;
  EXPECT_EQ(e.perms[0], 'r') << line;
  // Readers (ctx-sharing-demo) look for a one-page mapping.
  EXPECT_EQ(e.end - e.start, static_cast<unsigned long>(sysconf(_SC_PAGESIZE))) << line;
  if (p.mapping_kind() == MappingKind::kMemfd) {
    EXPECT_EQ(e.name.rfind("/memfd:OTEL_CTX", 0) == 0 || e.name == "[anon_shmem:OTEL_CTX]", true);
  } else {
    EXPECT_EQ(e.name, "[anon:OTEL_CTX]");
  }
  // madvise(MADV_DONTFORK) shows as "dc" in the mapping's VmFlags.
  const std::string flags = VmFlagsAt(p.header());
  EXPECT_NE(flags.find(" dc"), std::string::npos) << flags;
  EXPECT_EQ(flags.find(" ex"), std::string::npos) << flags;
}

TEST(ProcessContextPublisher, HeaderFieldsAndPayload) {
  ProcessContextPublisher p;
  timespec before{};
  clock_gettime(CLOCK_BOOTTIME, &before);
  ASSERT_EQ(p.Publish(kResource, {"http.route", "user.id", "http.route"}), "");
  timespec after{};
  clock_gettime(CLOCK_BOOTTIME, &after);
  const vtctx_pctx_header* h = p.header();
  EXPECT_EQ(std::memcmp(h->signature, "OTEL_CTX", 8), 0);
  EXPECT_EQ(h->version, 2u);
  const uint64_t ns_before = before.tv_sec * 1000000000ull + before.tv_nsec;
  const uint64_t ns_after = after.tv_sec * 1000000000ull + after.tv_nsec;
  EXPECT_GE(h->published_at_ns, ns_before);  // CLOCK_BOOTTIME nanoseconds
  EXPECT_LE(h->published_at_ns, ns_after);
  ASSERT_GT(h->payload_size, 0u);
  EXPECT_LE(h->payload_size, 65536u);
  // The payload lives outside the header page.
  EXPECT_TRUE(h->payload < reinterpret_cast<uint64_t>(h) ||
              h->payload >= reinterpret_cast<uint64_t>(h) + sysconf(_SC_PAGESIZE));
  std::string expected;
  ASSERT_EQ(EncodeProcessContext(kResource, {"http.route", "user.id"}, &expected), "");
  EXPECT_EQ(std::string(reinterpret_cast<const char*>(h->payload), h->payload_size), expected);
  EXPECT_EQ(p.keys(), (std::vector<std::string>{"http.route", "user.id"}));  // duplicates collapse
  EXPECT_EQ(p.key_count(), 2u);
  EXPECT_EQ(p.publications(), 1u);
  EXPECT_NE(p.Publish(kResource, {}), "");  // only once
}

// The configured extra attributes are in the first payload and in every update's.
TEST(ProcessContextPublisher, ExtraAttributesInEveryPayload) {
  ProcessContextPublisher::Config config;
  config.extra_attributes = {{"vtctx.version", "9.8.7"}};
  ProcessContextPublisher p(config);
  ASSERT_EQ(p.Publish(kResource, {"a"}), "");
  for (const char* key : {"", "b"}) {
    if (*key != '\0') {
      ASSERT_EQ(p.RegisterKey(key).index, 1);
    }
    const vtctx_pctx_header* h = p.header();
    std::optional<DecodedContext> ctx = DecodeProcessContext(
        std::string(reinterpret_cast<const char*>(h->payload), h->payload_size));
    ASSERT_TRUE(ctx.has_value());
    const testing::DecodedValue* version = ctx->Extra("vtctx.version");
    ASSERT_NE(version, nullptr) << "after registering '" << key << "'";
    EXPECT_EQ(version->string_value, "9.8.7");
  }
  EXPECT_EQ(p.publications(), 2u);
}

TEST(ProcessContextPublisher, ForkedChildHasNoContextAndCannotUpdateIt) {
  ProcessContextPublisher p;
  ASSERT_EQ(p.Publish(kResource, {}), "");
  int pipe_fds[2];
  ASSERT_EQ(pipe(pipe_fds), 0);
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    // 'M': the mapping was inherited; 'K': the child could register a key; '.' for neither.
    char verdict[2] = {MapsLineAt(p.header()).empty() ? '.' : 'M',
                       p.RegisterKey("child.key").error == KeyError::kForked ? '.' : 'K'};
    ssize_t ignored = write(pipe_fds[1], verdict, sizeof verdict);
    (void)ignored;
    _exit(0);
  }
  close(pipe_fds[1]);
  char verdict[2] = {'?', '?'};
  EXPECT_EQ(read(pipe_fds[0], verdict, sizeof verdict), 2);
  close(pipe_fds[0]);
  int status = 0;
  waitpid(child, &status, 0);
  EXPECT_EQ(verdict[0], '.') << "the child inherited the OTEL_CTX mapping";
  EXPECT_EQ(verdict[1], '.') << "the child was allowed to update the parent's context";
  EXPECT_EQ(p.RegisterKey("parent.key").index, 0);  // the parent is unaffected
}

TEST(ProcessContextPublisher, UpdateProtocolKeepsOldPayloadsAndIndexes) {
  ProcessContextPublisher p;
  ASSERT_EQ(p.Publish(kResource, {"a"}), "");
  const vtctx_pctx_header* h = p.header();
  Snapshot first = ReadSettled(h);

  ProcessContextPublisher::KeyResult b = p.RegisterKey("b");
  EXPECT_EQ(b.index, 1);
  EXPECT_EQ(b.error, KeyError::kNone);
  Snapshot second = ReadSettled(h);
  EXPECT_GT(second.published_at, first.published_at);  // strictly greater: readers re-read
  EXPECT_NE(second.payload_address, first.payload_address);
  std::optional<DecodedContext> ctx = DecodeProcessContext(second.payload);
  ASSERT_TRUE(ctx.has_value());
  EXPECT_EQ(ctx->Extra("threadlocal.attribute_key_map")->array_values,
            (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(ctx->resource.size(), kResource.size());  // the resource is republished unchanged

  // Registering again changes nothing: same index, no new publication.
  EXPECT_EQ(p.RegisterKey("a").index, 0);
  EXPECT_EQ(p.RegisterKey("b").index, 1);
  EXPECT_EQ(ReadSettled(h).published_at, second.published_at);
  EXPECT_EQ(p.publications(), 2u);

  // Rapid updates still get strictly increasing timestamps.
  uint64_t last = second.published_at;
  for (int i = 0; i < 50; ++i) {
    ASSERT_EQ(p.RegisterKey("k" + std::to_string(i)).index, 2 + i);
    const uint64_t now = ReadSettled(h).published_at;
    EXPECT_GT(now, last);
    last = now;
  }
  // An old payload is never freed or changed: a reader that raced an update can finish reading it.
  EXPECT_EQ(std::string(reinterpret_cast<const char*>(first.payload_address), first.payload.size()),
            first.payload);
}

TEST(ProcessContextPublisher, KeyRulesAndTheLimitOf255Keys) {
  ProcessContextPublisher unpublished;
  EXPECT_EQ(unpublished.RegisterKey("k").error, KeyError::kNotPublished);

  ProcessContextPublisher p;
  ASSERT_EQ(p.Publish(kResource, {}), "");
  EXPECT_EQ(p.RegisterKey("").error, KeyError::kEmpty);
  EXPECT_EQ(p.RegisterKey(std::string(256, 'k')).error, KeyError::kTooLong);
  EXPECT_EQ(p.RegisterKey("bad\xff").error, KeyError::kInvalidUtf8);
  EXPECT_EQ(p.RegisterKey(std::string(255, 'k')).index, 0);  // 255 bytes is fine
  for (int i = 1; i < 255; ++i) {
    ProcessContextPublisher::KeyResult r = p.RegisterKey("key." + std::to_string(i));
    ASSERT_EQ(r.index, i) << Describe(r.error);
  }
  EXPECT_EQ(p.key_count(), 255u);
  ProcessContextPublisher::KeyResult over = p.RegisterKey("one.too.many");
  EXPECT_EQ(over.index, -1);
  EXPECT_EQ(over.error, KeyError::kTooManyKeys);
  EXPECT_EQ(p.RegisterKey("key.254").index, 254);  // existing keys still resolve
  std::optional<DecodedContext> ctx = DecodeProcessContext(ReadSettled(p.header()).payload);
  ASSERT_TRUE(ctx.has_value());
  EXPECT_EQ(ctx->Extra("threadlocal.attribute_key_map")->array_values.size(), 255u);
  EXPECT_STREQ(Describe(KeyError::kTooManyKeys),
               "255 attribute keys already registered (record key indexes are one byte)");
}

// The documented guarantee: 255 keys of 60 bytes always fit the reader limits.
TEST(ProcessContextPublisher, TwoHundredFiftyFiveSixtyByteKeysFit) {
  ProcessContextPublisher p;
  ASSERT_EQ(p.Publish(kResource, {}), "");
  for (int i = 0; i < 255; ++i) {
    ProcessContextPublisher::KeyResult r =
        p.RegisterKey(std::string(57, 'k') + std::to_string(100 + i));
    ASSERT_EQ(r.index, i) << Describe(r.error);
  }
  EXPECT_TRUE(DecodeProcessContext(ReadSettled(p.header()).payload).has_value());
}

TEST(ProcessContextPublisher, KeyMapFullFailsCleanlyWithoutUsingAnIndex) {
  ProcessContextPublisher p;
  ASSERT_EQ(p.Publish(kResource, {}), "");
  int registered = 0;
  ProcessContextPublisher::KeyResult r{0, KeyError::kNone};
  while (r.error == KeyError::kNone) {
    r = p.RegisterKey(std::string(250, 'k') + std::to_string(1000 + registered));
    if (r.error == KeyError::kNone) {
      ASSERT_EQ(r.index, registered++);
    }
  }
  EXPECT_EQ(r.error, KeyError::kKeyMapFull);
  EXPECT_GT(registered, 50);
  EXPECT_EQ(p.key_count(), static_cast<size_t>(registered));
  // The published payload is the last good one, and short keys still fit afterwards.
  std::optional<DecodedContext> ctx = DecodeProcessContext(ReadSettled(p.header()).payload);
  ASSERT_TRUE(ctx.has_value());
  EXPECT_EQ(ctx->Extra("threadlocal.attribute_key_map")->array_values.size(),
            static_cast<size_t>(registered));
}

TEST(ProcessContextPublisher, AnonymousFallbackIsNamedOrRefused) {
  ProcessContextPublisher::Config no_memfd;
  no_memfd.allow_memfd = false;
  ProcessContextPublisher p(no_memfd);
  const std::string error = p.Publish(kResource, {});
  if (KernelNamesAnonymousMappings()) {
    ASSERT_EQ(error, "");
    EXPECT_EQ(p.mapping_kind(), MappingKind::kAnonymous);
    EXPECT_TRUE(p.named());
    EXPECT_EQ(ParseMapsLine(MapsLineAt(p.header())).name, "[anon:OTEL_CTX]");
  } else {
    // Neither memfd nor a name: readers could never find it, so publication must fail (OTEP 4719)
    // and leave no mapping behind.
    EXPECT_NE(error.find("CONFIG_ANON_VMA_NAME"), std::string::npos) << error;
    EXPECT_EQ(p.header(), nullptr);
    EXPECT_EQ(p.RegisterKey("k").error, KeyError::kNotPublished);
  }
}

// Many threads append keys while a reader follows the header's timestamp/retry rule. Every
// snapshot the reader accepts must decode, carry the schema version and a key map that extends the
// previous snapshot's (append-only, never reordered); old payloads stay intact; every writer gets
// the same index for the same key.
TEST(ProcessContextPublisher, ConcurrentAppendsNeverTearWhatAReaderSees) {
  ProcessContextPublisher p;
  ASSERT_EQ(p.Publish(kResource, {"pre.0"}), "");
  const vtctx_pctx_header* h = p.header();
  std::vector<std::string> keys;
  for (int i = 1; i < 255; ++i) keys.push_back("key." + std::to_string(i));
  constexpr int kWriters = 8;

  std::atomic<bool> writers_done{false};
  std::atomic<uint64_t> reads{0};
  std::vector<std::string> failures;
  std::vector<Snapshot> accepted;
  uint64_t retries = 0;
  std::thread reader([&] {
    std::vector<std::string> last_map;
    uint64_t last_at = 0;
    for (;;) {
      const bool final_round = writers_done.load(std::memory_order_acquire);
      std::optional<Snapshot> s = TryRead(h);
      reads.fetch_add(1, std::memory_order_release);
      if (!s) {
        ++retries;
        continue;
      }
      if (s->published_at != last_at) {
        std::optional<DecodedContext> ctx = DecodeProcessContext(s->payload);
        const testing::DecodedValue* map =
            ctx ? ctx->Extra("threadlocal.attribute_key_map") : nullptr;
        const testing::DecodedValue* schema =
            ctx ? ctx->Extra("threadlocal.schema_version") : nullptr;
        if (!map || !map->is_array || !schema || schema->string_value != "tlsdesc_v1_dev" ||
            ctx->resource.size() != kResource.size()) {
          failures.push_back("snapshot at " + std::to_string(s->published_at) + " did not decode");
        } else if (s->published_at < last_at || map->array_values.size() < last_map.size() ||
                   !std::equal(last_map.begin(), last_map.end(), map->array_values.begin())) {
          failures.push_back("key map is not an append-only extension of the previous snapshot");
        } else {
          last_map = map->array_values;
          last_at = s->published_at;
          accepted.push_back(*s);
        }
      }
      if (final_round) break;
    }
  });

  std::vector<std::vector<int>> indexes(kWriters, std::vector<int>(keys.size(), -2));
  std::vector<std::thread> writers;
  for (int w = 0; w < kWriters; ++w) {
    writers.emplace_back([&, w] {
      std::vector<size_t> order(keys.size());
      for (size_t i = 0; i < order.size(); ++i) order[i] = i;
      std::shuffle(order.begin(), order.end(), std::mt19937(1234 + w));
      for (size_t n = 0; n < order.size(); ++n) {
        indexes[w][order[n]] = p.RegisterKey(keys[order[n]]).index;
        // Every 4 registrations, wait (bounded) until the reader has made progress, so reads
        // really interleave with appends even on a machine with few CPUs.
        if (n % 4 == 3) {
          const uint64_t target = reads.load(std::memory_order_acquire) + 2;
          const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
          while (reads.load(std::memory_order_acquire) < target &&
                 std::chrono::steady_clock::now() < deadline) {
            std::this_thread::yield();
          }
        }
      }
    });
  }
  for (std::thread& t : writers) t.join();
  writers_done.store(true, std::memory_order_release);
  reader.join();

  EXPECT_TRUE(failures.empty()) << failures.front();
  const std::vector<std::string> final_keys = p.keys();
  ASSERT_EQ(final_keys.size(), 255u);
  for (size_t k = 0; k < keys.size(); ++k) {
    const int index = indexes[0][k];
    ASSERT_GE(index, 1);
    EXPECT_EQ(final_keys[index], keys[k]);
    for (int w = 1; w < kWriters; ++w) EXPECT_EQ(indexes[w][k], index) << keys[k];
  }
  ASSERT_FALSE(accepted.empty());
  std::optional<DecodedContext> last = DecodeProcessContext(accepted.back().payload);
  ASSERT_TRUE(last.has_value());
  EXPECT_EQ(last->Extra("threadlocal.attribute_key_map")->array_values, final_keys);
  // The reader saw intermediate states, not just the first and the last (the pacing above makes
  // reads interleave with appends; how many distinct states they catch depends on scheduling).
  EXPECT_GE(accepted.size(), 3u) << "retries=" << retries;
  for (const Snapshot& s : accepted) {
    EXPECT_EQ(std::string(reinterpret_cast<const char*>(s.payload_address), s.payload.size()),
              s.payload);
  }
  std::printf("reader: %zu distinct snapshots, %llu retries, %zu payload bytes kept\n",
              accepted.size(), static_cast<unsigned long long>(retries), p.payload_bytes());
}

}  // namespace
}  // namespace vtctx
