#include "hotspot/javaThreadLayout.h"

#include <elf.h>

#include <algorithm>
#include <array>
#include <span>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "hotspot/hotspotNames.h"
#include "hotspot/jvmFacts.h"
#include "hotspot/vmStructs.h"
#include "target/arch.h"
#include "target/elfSymbols.h"
#include "target/processContextReader.h"
#include "target/writerChannel.h"
#include "vtctx/record.h"
#include "vtctx/threadIndex.h"
#include "vtctx/threadIndexLookup.h"

namespace vtctx::reader {
namespace {

constexpr absl::string_view kThreadCurrent = "_ZN6Thread12_thr_currentE";
constexpr absl::string_view kTidOffset = "_ZN16java_lang_Thread11_tid_offsetE";
constexpr uint64_t kMaxFieldOffset = 1 << 16;  // JavaThread is a few KiB; a Thread object smaller
constexpr uint64_t kMaxModuleId = 1 << 16;

absl::Status Refuse(absl::string_view why) {
  return absl::UnimplementedError(
      absl::StrCat("cannot follow the identity channel in this JVM: ", why));
}

// Collectors that move objects only at safepoints, when no Java thread runs Java code and a
// handle's slot is updated before the old copy's memory can be reused (docs/design.md).
constexpr std::array<absl::string_view, 4> kSafepointMovingCollectors = {
    "UseG1GC", "UseParallelGC", "UseSerialGC", "UseEpsilonGC"};
constexpr std::array<absl::string_view, 2> kConcurrentMovingCollectors = {"UseZGC",
                                                                          "UseShenandoahGC"};

struct LibJvm {
  ElfInternals elf;
  uint64_t bias = 0;
};

// The libjvm.so symbols the recipe reads: its own and the names table's (hotspotNames.h).
std::vector<absl::string_view> LibJvmSymbolNames() {
  std::vector<absl::string_view> names = {kThreadCurrent, kTidOffset};
  for (const AlternateName& a : kJavaThreadTestNames) {
    if (a.where == AlternateName::Where::kSymbol) names.push_back(a.name);
  }
  return names;
}

absl::StatusOr<LibJvm> ReadLibJvm(const std::string& proc_dir, const std::vector<Mapping>& maps) {
  static const std::vector<absl::string_view> kNames = LibJvmSymbolNames();
  for (const MappedFile& file : GroupMappedFiles(maps)) {
    if (!absl::EndsWith(file.path, "/libjvm.so")) continue;
    const Mapping& first = file.mappings.front();
    absl::StatusOr<ElfInternals> elf = ReadInternalsFromFile(
        absl::StrFormat("%s/map_files/%x-%x", proc_dir, first.start, first.end), kNames,
        HostArch().relocs.dtpmod);
    if (!elf.ok()) return elf.status();
    const std::optional<uint64_t> bias = LoadBias(file, elf->loads);
    if (!bias) return Refuse("no mapping holds libjvm.so's first segment");
    return LibJvm{std::move(*elf), *bias};
  }
  return Refuse("no libjvm.so mapped (not a HotSpot JVM)");
}

// The first few JavaThreads of the JVM's own list of them (ThreadsSMRSupport::_java_thread_list).
absl::StatusOr<std::vector<uint64_t>> ListedJavaThreads(MemoryReader& memory, const VmStructs& vm) {
  const std::optional<uint64_t> list_at = vm.Address("ThreadsSMRSupport", "_java_thread_list");
  const std::optional<uint64_t> length_at = vm.Offset("ThreadsList", "_length");
  const std::optional<uint64_t> threads_at = vm.Offset("ThreadsList", "_threads");
  if (!list_at || !length_at || !threads_at) {
    return absl::UnimplementedError("HotSpot's VMStructs do not describe its list of Java threads");
  }
  absl::StatusOr<uint64_t> list = memory.ReadU64(*list_at);
  uint32_t length = 0;
  absl::StatusOr<uint64_t> threads = list.ok() && *list != 0
                                         ? memory.ReadU64(*list + *threads_at)
                                         : absl::StatusOr<uint64_t>(absl::NotFoundError(""));
  if (!threads.ok() || !memory.Read(*list + *length_at, &length, sizeof length).ok() ||
      length == 0 || *threads == 0) {
    return absl::UnimplementedError("the JVM's list of Java threads is not readable");
  }
  std::vector<uint64_t> out;
  for (uint32_t i = 0; i < std::min<uint32_t>(length, 8); ++i) {
    absl::StatusOr<uint64_t> thread = memory.ReadU64(*threads + 8 * i);
    if (!thread.ok() || *thread == 0) {
      return absl::UnimplementedError("the JVM's list of Java threads is not readable");
    }
    out.push_back(*thread);
  }
  return out;
}

// The JNI function table every JavaThread's JNIEnv points at: the listed threads must agree.
absl::StatusOr<uint64_t> JniFunctionTable(MemoryReader& memory, std::span<const uint64_t> threads,
                                          uint64_t jni_env_offset) {
  uint64_t table = 0;
  for (uint64_t thread : threads) {
    absl::StatusOr<uint64_t> functions = memory.ReadU64(thread + jni_env_offset);
    if (!functions.ok() || *functions == 0 || (table != 0 && *functions != table)) {
      return absl::UnimplementedError("the JVM's Java threads do not share one JNI function table");
    }
    table = *functions;
  }
  return table;
}

// A JavaThread's vtable pointer: the vtable symbol's address past its offset-to-top and type-info
// words (the Itanium C++ ABI's address point), which HotSpot's Serviceability Agent compares too.
// The main thread, first in the list, is a plain JavaThread: some listed thread must carry it.
constexpr uint64_t kVtableAddressPoint = 16;
absl::StatusOr<uint64_t> JavaThreadVtable(MemoryReader& memory, std::span<const uint64_t> threads,
                                          uint64_t vtable) {
  const uint64_t expected = vtable + kVtableAddressPoint;
  for (uint64_t thread : threads) {
    absl::StatusOr<uint64_t> word = memory.ReadU64(thread);
    if (word.ok() && *word == expected) return expected;
  }
  return absl::UnimplementedError(
      "no thread in the JVM's list of Java threads has JavaThread's vtable (libjvm.so's "
      "_ZTV10JavaThread): not this libjvm.so's symbol table?");
}

}  // namespace

absl::StatusOr<IdentityRecipe> ResolveIdentityRecipe(const std::string& proc_dir,
                                                     const std::vector<Mapping>& maps,
                                                     MemoryReader& memory, uint64_t index) {
  // The index first: without it nothing else matters.
  const protocol::IndexHit probe = protocol::FindInIndex(
      [&](uint64_t at, void* into, size_t n) { return memory.Read(at, into, n).ok(); }, index, 1);
  if (probe.outcome == protocol::IndexOutcome::kMalformed) return Refuse(probe.problem);
  if (probe.outcome == protocol::IndexOutcome::kUnreadable) {
    return Refuse(absl::StrFormat("the thread index at 0x%x cannot be read", index));
  }
  absl::StatusOr<IdentityRecipe> recipe = ResolveJavaThreadRecipe(proc_dir, maps, memory);
  if (recipe.ok()) recipe->recipe.index = index;
  return recipe;
}

absl::Status CheckIdentityFollowable(const TargetProcess& target, MemoryReader& memory) {
  absl::StatusOr<std::vector<Mapping>> maps = ReadMapsIn(target.dir());
  if (!maps.ok()) return maps.status();
  return ResolveJavaThreadRecipe(target.dir(), *maps, memory).status();
}

absl::StatusOr<IdentityRecipe> ResolveJavaThreadRecipe(const std::string& proc_dir,
                                                       const std::vector<Mapping>& maps,
                                                       MemoryReader& memory) {
  IdentityRecipe out;
  vtctx_identity_recipe& r = out.recipe;
  absl::StatusOr<LibJvm> jvm = ReadLibJvm(proc_dir, maps);
  if (!jvm.ok()) return jvm.status();
  const auto current = jvm->elf.symbols.find(std::string(kThreadCurrent));
  if (current == jvm->elf.symbols.end()) {
    return Refuse("libjvm.so has no Thread::_thr_current in its symbol table (stripped?)");
  }
  if (current->second.type != STT_TLS || current->second.size != 8) {
    return Refuse("libjvm.so's Thread::_thr_current is not an 8-byte TLS variable");
  }
  if (!jvm->elf.own_module_id_got) {
    return Refuse("libjvm.so has no relocation that names its own TLS module");
  }
  absl::StatusOr<uint64_t> module_id = memory.ReadU64(jvm->bias + *jvm->elf.own_module_id_got);
  if (!module_id.ok() || *module_id == 0 || *module_id > kMaxModuleId) {
    return Refuse("libjvm.so's TLS module id is not readable (not relocated yet?)");
  }
  const ArchInfo& arch = HostArch();
  r.thread_slot.kind = VTCTX_SLOT_DTV;
  r.thread_slot.dtv_entry_size = arch.dtv_entry_size;
  r.thread_slot.dtv_ptr_offset = arch.dtv_ptr_offset;
  r.thread_slot.module_id = *module_id;
  r.thread_slot.module_offset = current->second.value;

  absl::StatusOr<VmStructs> vm = OpenVmStructs(proc_dir, maps, memory);
  if (!vm.ok()) return Refuse(absl::StrCat("HotSpot's VMStructs: ", vm.status().message()));
  std::vector<absl::string_view> flags(kSafepointMovingCollectors.begin(),
                                       kSafepointMovingCollectors.end());
  flags.insert(flags.end(), kConcurrentMovingCollectors.begin(), kConcurrentMovingCollectors.end());
  absl::StatusOr<JvmFacts> facts = ReadJvmFacts(memory, *vm, flags);
  const std::string release = facts.ok() && !facts->release.empty() ? facts->release : "unknown";

  // Each thing the recipe needs by the first of its names (hotspotNames.h) this JVM has: a field
  // of gHotSpotVMStructs or JVMCIVMStructs, or a symbol of libjvm.so's .symtab.
  auto named = [&](const AlternateName& a) -> std::optional<uint64_t> {
    if (a.where == AlternateName::Where::kOffset) return vm->Offset(a.name, a.field);
    const auto it = jvm->elf.symbols.find(std::string(a.name));
    if (it == jvm->elf.symbols.end() || it->second.value == 0) return std::nullopt;
    return it->second.value;
  };

  // What tells a JavaThread from HotSpot's other threads: a word only JavaThreads hold.
  const auto test = FirstNamed(kJavaThreadTestNames, named);
  if (!test) {
    return Refuse(absl::StrCat("Java ", release, ": HotSpot names none of ",
                               DescribeAlternates(kJavaThreadTestNames)));
  }
  absl::StatusOr<std::vector<uint64_t>> listed = ListedJavaThreads(memory, *vm);
  if (!listed.ok()) return Refuse(listed.status().message());
  std::string told_by;
  switch (static_cast<JavaThreadTest>(test->first)) {
    case JavaThreadTest::kJniEnvironment: {
      if (test->second == 0 || test->second > kMaxFieldOffset)
        return Refuse("JavaThread::_jni_environment is out of range");
      absl::StatusOr<uint64_t> functions = JniFunctionTable(memory, *listed, test->second);
      if (!functions.ok()) return Refuse(functions.status().message());
      r.java_thread_word_offset = test->second;
      r.java_thread_word = *functions;
      told_by = absl::StrFormat("JavaThreads by their JNIEnv at +%d", test->second);
      break;
    }
    case JavaThreadTest::kVtable: {
      absl::StatusOr<uint64_t> vtable = JavaThreadVtable(memory, *listed, jvm->bias + test->second);
      if (!vtable.ok()) return Refuse(vtable.status().message());
      r.java_thread_word_offset = 0;
      r.java_thread_word = *vtable;
      told_by = "JavaThreads by their vtable";
      break;
    }
  }

  const auto id = FirstNamed(kJavaThreadIdNames, named);
  if (!id) {
    return Refuse(absl::StrCat("Java ", release, ": HotSpot names none of ",
                               DescribeAlternates(kJavaThreadIdNames)));
  }
  if (id->second == 0 || id->second > kMaxFieldOffset) {
    const AlternateName& a = kJavaThreadIdNames[id->first];
    return Refuse(absl::StrCat(a.name, "::", a.field, " is out of range"));
  }
  if (static_cast<JavaThreadId>(id->first) == JavaThreadId::kMonitorOwnerId) {
    r.kind = VTCTX_IDENTITY_OWNER_ID;
    r.owner_id_offset = id->second;
    out.description = absl::StrFormat("JavaThread::_monitor_owner_id at +%d, %s (Java %s)",
                                      id->second, told_by, release);
    return out;
  }
  // JDK 21-23: the Thread object's tid, read where that is safe.
  const std::optional<uint64_t> vthread = id->second;
  if (!facts.ok()) return Refuse(absl::StrCat("the JVM's flags: ", facts.status().message()));
  for (absl::string_view gc : kConcurrentMovingCollectors) {
    if (auto it = facts->flags.find(std::string(gc)); it != facts->flags.end() && it->second) {
      return Refuse(absl::StrCat("Java ", release,
                                 " has no JavaThread::_monitor_owner_id (JDK 24+), "
                                 "and its collector (",
                                 gc.substr(3),
                                 ") moves objects while Java "
                                 "runs: reading the mounted Thread object is unsafe; run JDK 24+ "
                                 "or G1/Parallel/Serial, or use channel=carrier"));
    }
  }
  bool safe = false;
  for (absl::string_view gc : kSafepointMovingCollectors) {
    if (auto it = facts->flags.find(std::string(gc)); it != facts->flags.end() && it->second)
      safe = true;
  }
  if (!safe) return Refuse("the JVM's collector is not one that moves objects only at safepoints");
  const auto tid_symbol = jvm->elf.symbols.find(std::string(kTidOffset));
  if (tid_symbol == jvm->elf.symbols.end()) {
    return Refuse("libjvm.so has no java_lang_Thread::_tid_offset in its symbol table (stripped?)");
  }
  int32_t tid_offset = 0;
  if (!memory.Read(jvm->bias + tid_symbol->second.value, &tid_offset, sizeof tid_offset).ok() ||
      tid_offset <= 0 || static_cast<uint64_t>(tid_offset) > kMaxFieldOffset ||
      tid_offset % 8 != 0) {
    return Refuse("java_lang_Thread::_tid_offset is not readable or out of range");
  }
  r.kind = VTCTX_IDENTITY_VTHREAD_OOP;
  r.vthread_offset = *vthread;
  r.tid_offset = static_cast<uint64_t>(tid_offset);
  out.description = absl::StrFormat(
      "JavaThread::_vthread at +%d, Thread.tid at +%d, %s (Java %s, objects move only at "
      "safepoints)",
      *vthread, tid_offset, told_by, release);
  return out;
}

absl::StatusOr<IdentityRecipe> ChooseChannel(const TargetProcess& target, MemoryReader& memory,
                                             std::optional<bool> identity, std::string* note) {
  note->clear();
  absl::StatusOr<std::vector<Mapping>> maps = ReadMapsIn(target.dir());
  if (!maps.ok()) return maps.status();
  const WriterChannel writer = WriterChannelOf(ReadProcessContext(*maps, memory));
  const bool follow_identity = identity.value_or(writer.channel == "identity");
  if (!follow_identity) {
    IdentityRecipe carrier;
    carrier.description = "carrier channel (" VTCTX_TLS_SYMBOL ")";
    if (writer.channel == "identity") {
      *note =
          "warning: the writer runs channel=identity: on the carrier channel a virtual "
          "thread reads as no context (--channel auto follows the writer)";
    }
    return carrier;
  }
  if (writer.index == 0) {
    return Refuse(!writer.index_error.empty()
                      ? writer.index_error
                      : "its process context names no thread index (a vtctx agent with "
                        "channel=carrier keeps one only with thread_index=on; or no vtctx agent)");
  }
  absl::StatusOr<IdentityRecipe> recipe =
      ResolveIdentityRecipe(target.dir(), *maps, memory, writer.index);
  if (recipe.ok()) recipe->description = "identity channel: " + recipe->description;
  if (recipe.ok() && writer.channel == "carrier") {
    *note =
        "the writer runs channel=carrier; following its thread index, which holds only the "
        "threads that published through the shim";
  }
  return recipe;
}

}  // namespace vtctx::reader
