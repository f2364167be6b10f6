// "Process memory" made of a fuzz input, for the reader's fuzzers: address a is input byte a.
#ifndef VTCTX_TESTS_READER_FUZZ_INPUT_MEMORY_H_
#define VTCTX_TESTS_READER_FUZZ_INPUT_MEMORY_H_

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "target/processMemory.h"

namespace vtctx::reader {

class InputMemory final : public MemoryReader {
 public:
  InputMemory(const uint8_t* data, size_t size) : data_(data), size_(size) {}
  absl::Status Read(uint64_t address, void* out, size_t size) override {
    if (address > size_ || size > size_ - address) return absl::OutOfRangeError("outside input");
    std::memcpy(out, data_ + address, size);
    return absl::OkStatus();
  }

 private:
  const uint8_t* data_;
  size_t size_;
};

}  // namespace vtctx::reader

#endif  // VTCTX_TESTS_READER_FUZZ_INPUT_MEMORY_H_
