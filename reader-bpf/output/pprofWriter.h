// `profile --format pprof`: samples with their stacks and labels as pprof's profile.proto
// (github.com/google/pprof, proto/profile.proto), gzip-compressed, which `go tool pprof`,
// Pyroscope and most profiling tools ingest.
//
// The profile: sample types samples/count and cpu/nanoseconds (default), period type
// cpu/nanoseconds with the sampling period; one location per (module, address, names): a JIT
// frame with inlined methods is one location with a line per method, innermost first; one
// function per (name, module), one mapping per module, all mappings with has_functions set (the
// names are final: nothing for pprof to symbolize). Labels are strings (trace_id, span_id, named
// record attributes) or numbers (thread.id).
//
// Hand-written over the protocol's ProtobufWriter (vtctx/protobufWire.h): the five messages pprof
// needs are ~150 lines, where a protobuf runtime would add a code generator to the build and a
// library to the static link.
#ifndef VTCTX_READER_PPROF_WRITER_H_
#define VTCTX_READER_PPROF_WRITER_H_

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "output/foldedProfile.h"
#include "output/symbolizer.h"

namespace vtctx::reader {

// A frame of a sample: its name and module by their ids in PprofProfile::texts (each distinct
// text held once, however many samples name it: foldedProfile.h says why).
struct PprofFrame {
  uint32_t name = 0;
  uint32_t module = 0;
  uint64_t address = 0;
  bool inlined = false;  // inlined into the next frame: one location
};

struct PprofSample {
  std::vector<PprofFrame> frames;  // innermost first
  std::vector<std::pair<std::string, std::string>> labels;
  std::vector<std::pair<std::string, int64_t>> number_labels;
  int64_t count = 0;  // samples
};

struct PprofProfile {
  int64_t period_ns = 0;   // CPU time one sample stands for
  int64_t time_nanos = 0;  // wall-clock start (CLOCK_REALTIME)
  int64_t duration_nanos = 0;
  TextPool texts;  // frame names and modules
  std::vector<PprofSample> samples;

  // A frame with its texts interned.
  PprofFrame Intern(const Frame& frame) {
    return {texts.Intern(frame.name), texts.Intern(frame.module), frame.address, frame.inlined};
  }
};

// The uncompressed profile.proto message.
std::string EncodePprof(const PprofProfile& profile);

// Writes `bytes` gzip-compressed to `path` (replacing it; opened as outputFile.h opens it).
absl::Status WriteGzipFile(const std::string& path, const std::string& bytes);

}  // namespace vtctx::reader

#endif  // VTCTX_READER_PPROF_WRITER_H_
