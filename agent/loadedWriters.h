// Another thread-context writer loaded into this process: an ELF object other than the one that
// holds this code whose dynamic symbol table DEFINES the TLS variable `otel_thread_ctx_v1` (a
// second copy of libvtctx.so at another path, another build, or any other OTEP 4947 writer).
//
// Two writers split a process in two: each has its own `otel_thread_ctx_v1`, readers follow one
// and the shim binds to the other. So the agent refuses to start when it finds one.
//
// Reads only what the dynamic loader already mapped (dl_iterate_phdr, each object's .dynsym
// through its GNU or SysV hash table, its relocations): no file I/O, no dlopen/dlsym (a dlsym of a
// TLS symbol would allocate the calling thread's block).
#ifndef VTCTX_AGENT_LOADED_WRITERS_H_
#define VTCTX_AGENT_LOADED_WRITERS_H_

#include <string>
#include <string_view>

namespace vtctx {

struct OtherWriter {
  // As the dynamic loader names it ("[main program]" for the executable); empty: none.
  std::string path;
  // Its TLSDESC descriptor for the variable (two words the dynamic linker filled in), or null if
  // it reaches the variable through another TLS access model.
  const void* descriptor = nullptr;
};

// The first loaded object other than the caller's own that defines `otel_thread_ctx_v1`.
OtherWriter FindOtherThreadContextWriter();

// For a copy that stays loaded but inactive next to `other` (a second -agentpath: HotSpot keeps
// the library): copies `other`'s TLSDESC descriptor into this object's own, so that a reader that
// follows this object's descriptor (it also exports the symbol) reads the same slot as one that
// follows `other`'s. This object must never access its own `otel_thread_ctx_v1` afterwards.
// Returns "" or why the descriptor was left as it was.
std::string ShareThreadContextSlot(const OtherWriter& other);

// The OTEP 4719 process contexts (mappings the kernel names [anon:OTEL_CTX] or /memfd:OTEL_CTX)
// in the text of a maps file, other than the one holding `own` (null: every one).
int CountOtherContextMappings(std::string_view maps, const void* own);

}  // namespace vtctx

#endif  // VTCTX_AGENT_LOADED_WRITERS_H_
