// libFuzzer target for what names a target's frames (reader.names_fuzzer): the input as an ELF
// file's function symbols (elfFunctionSymbols.h) whose names are looked up and demangled within
// their bound (demangledName.h), as a perf map merged with itself and with its own second half
// (symbolTable.h, perfMapMerge.h), as a name to demangle, and as text for every output's
// sanitiser (untrustedText.h, guardedStderr.h) and the flame graph (flameGraphSvg.h). Any input
// must end quickly in bounded memory, never crash; every output must be showable.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <string>

#include "hotspot/perfMapMerge.h"
#include "output/demangledName.h"
#include "output/flameGraphSvg.h"
#include "output/foldedProfile.h"
#include "output/guardedStderr.h"
#include "target/elfFunctionSymbols.h"
#include "target/symbolTable.h"
#include "target/untrustedText.h"
#include "vtctx/utf8.h"

namespace {

using namespace vtctx::reader;

void Require(bool condition) {
  if (!condition) std::abort();
}

void Demangled(absl::string_view name) {
  if (std::optional<std::string> d = DemangleBounded(name, 256)) {
    Require(d->size() <= 256 + 3);  // the bound, then "..."
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const absl::string_view text(reinterpret_cast<const char*>(data), size);
  if (absl::StatusOr<FunctionSymbols> symbols = ReadFunctionSymbolsFromMemory({data, size});
      symbols.ok()) {
    for (uint64_t address : {uint64_t{0}, uint64_t{0x1000}, uint64_t{0x1040}, uint64_t{0x400000}}) {
      if (std::optional<FunctionSymbols::Symbol> s = symbols->Find(address)) {
        Require(s->name.size() <= kMaxSymbolNameBytes);
        Demangled(s->name);
      }
    }
  }
  const SymbolTable map = ParsePerfMap(text);
  const SymbolTable half = ParsePerfMap(text.substr(size / 2));
  const SymbolTable merged = MergePerfMaps(map, half);
  (void)MergePerfMaps(half, map);
  for (size_t i = 0; i + 1 < merged.size(); ++i) {
    Require(merged.at(i).start + merged.at(i).size <= merged.at(i + 1).start ||
            merged.at(i).size == 0);
  }
  Demangled(text);
  Demangled(std::string("_Z") + std::string(text));
  Require(IsShowableText(SafeName(text, 128)));
  std::string carry;
  const std::string guarded = GuardText(text, carry);
  Require(vtctx::IsValidUtf8(guarded));
  std::map<std::string, uint64_t> lines;
  lines[std::string(text.substr(0, 512))] = 3;
  lines[std::string(text.substr(size / 3, 512))] = 1;
  const std::string svg = RenderFlameGraph(FoldedProfile::FromLines(lines), std::string(text));
  Require(vtctx::IsValidUtf8(svg));
  return 0;
}
