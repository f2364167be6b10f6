#include "loadedWriters.h"

#include <elf.h>
#include <link.h>
#include <sys/mman.h>
#include <unistd.h>

#include <charconv>
#include <cstdint>
#include <cstring>
#include <utility>

#include "vtctx/record.h"

namespace vtctx {
namespace {

#if defined(__x86_64__)
constexpr uint32_t kTlsDescRelocation = R_X86_64_TLSDESC;
#elif defined(__aarch64__)
constexpr uint32_t kTlsDescRelocation = R_AARCH64_TLSDESC;
#else
#error "TLSDESC relocation type unknown for this architecture"
#endif
constexpr uint32_t kNoSymbol = UINT32_MAX;

// glibc relocates the d_ptr entries of a loaded object's dynamic section in place, except where
// the section is read-only (the vDSO): an address below the load bias is still unrelocated.
uintptr_t Address(uintptr_t bias, ElfW(Addr) ptr) { return ptr < bias ? bias + ptr : ptr; }

uint32_t GnuHash(const char* name) {
  uint32_t h = 5381;
  for (const unsigned char* p = reinterpret_cast<const unsigned char*>(name); *p != 0; ++p) {
    h = h * 33 + *p;
  }
  return h;
}

uint32_t SysvHash(const char* name) {
  uint32_t h = 0;
  for (const unsigned char* p = reinterpret_cast<const unsigned char*>(name); *p != 0; ++p) {
    h = (h << 4) + *p;
    const uint32_t g = h & 0xf0000000u;
    h ^= g >> 24;
    h &= ~g;
  }
  return h;
}

// What one loaded object's dynamic section says, as far as it matters here.
struct LoadedObject {
  const dl_phdr_info* info = nullptr;
  const ElfW(Sym) * symbols = nullptr;
  const char* strings = nullptr;
  const uint32_t* gnu_hash = nullptr;
  const uint32_t* sysv_hash = nullptr;
  const ElfW(Rela) * rela = nullptr;  // DT_RELA
  size_t rela_bytes = 0;
  const ElfW(Rela) * plt_rela = nullptr;  // DT_JMPREL, where DT_PLTREL is DT_RELA
  size_t plt_rela_bytes = 0;

  explicit LoadedObject(const dl_phdr_info* object) : info(object) {
    const ElfW(Dyn)* dynamic = nullptr;
    for (ElfW(Half) i = 0; i < info->dlpi_phnum; ++i) {
      if (info->dlpi_phdr[i].p_type == PT_DYNAMIC) {
        dynamic = reinterpret_cast<const ElfW(Dyn)*>(info->dlpi_addr + info->dlpi_phdr[i].p_vaddr);
      }
    }
    bool plt_is_rela = false;
    for (const ElfW(Dyn)* d = dynamic; d != nullptr && d->d_tag != DT_NULL; ++d) {
      const uintptr_t at = Address(info->dlpi_addr, d->d_un.d_ptr);
      switch (d->d_tag) {
        case DT_SYMTAB:
          symbols = reinterpret_cast<const ElfW(Sym)*>(at);
          break;
        case DT_STRTAB:
          strings = reinterpret_cast<const char*>(at);
          break;
        case DT_GNU_HASH:
          gnu_hash = reinterpret_cast<const uint32_t*>(at);
          break;
        case DT_HASH:
          sysv_hash = reinterpret_cast<const uint32_t*>(at);
          break;
        case DT_RELA:
          rela = reinterpret_cast<const ElfW(Rela)*>(at);
          break;
        case DT_RELASZ:
          rela_bytes = d->d_un.d_val;
          break;
        case DT_JMPREL:
          plt_rela = reinterpret_cast<const ElfW(Rela)*>(at);
          break;
        case DT_PLTRELSZ:
          plt_rela_bytes = d->d_un.d_val;
          break;
        case DT_PLTREL:
          plt_is_rela = d->d_un.d_val == DT_RELA;
          break;
        default:
          break;
      }
    }
    if (!plt_is_rela) plt_rela = nullptr;
  }

  bool IsDefinedTls(uint32_t index, const char* name) const {
    const ElfW(Sym)& sym = symbols[index];
    return sym.st_shndx != SHN_UNDEF && ELF64_ST_TYPE(sym.st_info) == STT_TLS &&
           std::strcmp(strings + sym.st_name, name) == 0;
  }

  // DT_GNU_HASH: nbuckets, symoffset, bloom_size, bloom_shift, bloom[bloom_size] (words),
  // buckets[nbuckets], chain[] (one per symbol from symoffset; bit 0 ends a bucket's chain).
  uint32_t FindInGnuHash(const char* name) const {
    const uint32_t* h = gnu_hash;
    const uint32_t nbuckets = h[0], symoffset = h[1], bloom_size = h[2], bloom_shift = h[3];
    if (nbuckets == 0 || bloom_size == 0) return kNoSymbol;
    const auto* bloom = reinterpret_cast<const ElfW(Addr)*>(h + 4);
    const uint32_t* buckets = reinterpret_cast<const uint32_t*>(bloom + bloom_size);
    const uint32_t* chain = buckets + nbuckets;
    constexpr uint32_t kWordBits = sizeof(ElfW(Addr)) * 8;
    const uint32_t hash = GnuHash(name);
    const ElfW(Addr) word = bloom[(hash / kWordBits) % bloom_size];
    const ElfW(Addr) mask = (ElfW(Addr){1} << (hash % kWordBits)) |
                            (ElfW(Addr){1} << ((hash >> bloom_shift) % kWordBits));
    if ((word & mask) != mask) return kNoSymbol;
    for (uint32_t index = buckets[hash % nbuckets]; index >= symoffset; ++index) {
      const uint32_t entry = chain[index - symoffset];
      if ((entry | 1) == (hash | 1) && IsDefinedTls(index, name)) return index;
      if (entry & 1) break;
    }
    return kNoSymbol;
  }

  // DT_HASH: nbucket, nchain, bucket[nbucket], chain[nchain].
  uint32_t FindInSysvHash(const char* name) const {
    const uint32_t nbucket = sysv_hash[0];
    if (nbucket == 0) return kNoSymbol;
    const uint32_t* bucket = sysv_hash + 2;
    const uint32_t* chain = bucket + nbucket;
    for (uint32_t i = bucket[SysvHash(name) % nbucket]; i != STN_UNDEF; i = chain[i]) {
      if (IsDefinedTls(i, name)) return i;
    }
    return kNoSymbol;
  }

  // The .dynsym index of the TLS symbol `name` this object defines, or kNoSymbol.
  uint32_t DefinedTlsSymbol(const char* name) const {
    if (symbols == nullptr || strings == nullptr) return kNoSymbol;
    if (gnu_hash != nullptr) return FindInGnuHash(name);
    if (sysv_hash != nullptr) return FindInSysvHash(name);
    return kNoSymbol;
  }

  // The descriptor a TLSDESC relocation of symbol `index` filled in, or null.
  ElfW(Addr) * TlsDescriptor(uint32_t index) const {
    for (const auto& [table, bytes] : {std::pair{rela, rela_bytes}, {plt_rela, plt_rela_bytes}}) {
      if (table == nullptr) continue;
      for (size_t i = 0; i < bytes / sizeof(ElfW(Rela)); ++i) {
        const ElfW(Rela)& r = table[i];
        if (ELF64_R_TYPE(r.r_info) == kTlsDescRelocation && ELF64_R_SYM(r.r_info) == index) {
          return reinterpret_cast<ElfW(Addr)*>(info->dlpi_addr + r.r_offset);
        }
      }
    }
    return nullptr;
  }

  bool Contains(uintptr_t address) const {
    for (ElfW(Half) i = 0; i < info->dlpi_phnum; ++i) {
      const ElfW(Phdr)& ph = info->dlpi_phdr[i];
      if (ph.p_type != PT_LOAD) continue;
      const uintptr_t start = info->dlpi_addr + ph.p_vaddr;
      if (address >= start && address < start + ph.p_memsz) return true;
    }
    return false;
  }

  // True if [address, address + bytes) lies in the object's PT_GNU_RELRO (read-only once
  // relocated).
  bool InRelro(uintptr_t address, size_t bytes) const {
    for (ElfW(Half) i = 0; i < info->dlpi_phnum; ++i) {
      const ElfW(Phdr)& ph = info->dlpi_phdr[i];
      if (ph.p_type != PT_GNU_RELRO) continue;
      const uintptr_t start = info->dlpi_addr + ph.p_vaddr;
      if (address >= start && address + bytes <= start + ph.p_memsz) return true;
    }
    return false;
  }
};

uintptr_t SelfAddress() { return reinterpret_cast<uintptr_t>(&FindOtherThreadContextWriter); }

struct FindOther {
  OtherWriter found;
  static int Visit(dl_phdr_info* info, size_t, void* data) {
    auto* search = static_cast<FindOther*>(data);
    const LoadedObject object(info);
    if (object.Contains(SelfAddress())) return 0;
    const uint32_t index = object.DefinedTlsSymbol(VTCTX_TLS_SYMBOL);
    if (index == kNoSymbol) return 0;
    const char* name = info->dlpi_name;
    search->found.path = (name != nullptr && name[0] != '\0') ? name : "[main program]";
    search->found.descriptor = object.TlsDescriptor(index);
    return 1;  // stop at the first
  }
};

struct ShareSlot {
  const OtherWriter* other = nullptr;
  std::string error = "this object was not found among the loaded ones";
  static int Visit(dl_phdr_info* info, size_t, void* data) {
    auto* share = static_cast<ShareSlot*>(data);
    const LoadedObject self(info);
    if (!self.Contains(SelfAddress())) return 0;
    ElfW(Addr)* own = self.TlsDescriptor(self.DefinedTlsSymbol(VTCTX_TLS_SYMBOL));
    share->error = own == nullptr ? "no TLSDESC descriptor of our own" : Copy(self, own, *share);
    return 1;
  }

  static std::string Copy(const LoadedObject& self, ElfW(Addr) * own, const ShareSlot& share) {
    constexpr size_t kBytes = 2 * sizeof(ElfW(Addr));
    const uintptr_t at = reinterpret_cast<uintptr_t>(own);
    const bool relro = self.InRelro(at, kBytes);
    const uintptr_t page = static_cast<uintptr_t>(sysconf(_SC_PAGESIZE));
    void* first = reinterpret_cast<void*>(at & ~(page - 1));
    const size_t span = ((at + kBytes + page - 1) & ~(page - 1)) - (at & ~(page - 1));
    if (relro && mprotect(first, span, PROT_READ | PROT_WRITE) != 0) {
      return "cannot make our descriptor writable";
    }
    std::memcpy(own, share.other->descriptor, kBytes);
    if (relro) mprotect(first, span, PROT_READ);
    return {};
  }
};

}  // namespace

OtherWriter FindOtherThreadContextWriter() {
  FindOther search;
  dl_iterate_phdr(FindOther::Visit, &search);
  return search.found;
}

std::string ShareThreadContextSlot(const OtherWriter& other) {
  if (other.descriptor == nullptr) return "the other writer has no TLSDESC descriptor";
  ShareSlot share;
  share.other = &other;
  dl_iterate_phdr(ShareSlot::Visit, &share);
  return share.error;
}

int CountOtherContextMappings(std::string_view maps, const void* own) {
  int others = 0;
  const auto own_address = reinterpret_cast<uintptr_t>(own);
  while (!maps.empty()) {
    const size_t newline = maps.find('\n');
    const std::string_view line = maps.substr(0, newline);
    maps = newline == std::string_view::npos ? std::string_view() : maps.substr(newline + 1);
    // "start-end perms offset dev inode   path": the name the kernel shows for the mapping.
    const bool named =
        line.ends_with("[anon:OTEL_CTX]") || line.find("/memfd:OTEL_CTX") != std::string_view::npos;
    if (!named) continue;
    uintptr_t start = 0, end = 0;
    const size_t dash = line.find('-');
    const size_t space = line.find(' ');
    if (dash == std::string_view::npos || space == std::string_view::npos || space < dash) continue;
    std::from_chars(line.data(), line.data() + dash, start, 16);
    std::from_chars(line.data() + dash + 1, line.data() + space, end, 16);
    if (own != nullptr && own_address >= start && own_address < end) continue;
    ++others;
  }
  return others;
}

}  // namespace vtctx
