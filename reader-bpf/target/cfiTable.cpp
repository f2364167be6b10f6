#include "target/cfiTable.h"

#include <algorithm>
#include <cstring>
#include <map>
#include <string>

#include "absl/status/status.h"

namespace vtctx::reader {
namespace {

constexpr uint64_t kRegRbp = 6;  // DWARF x86_64 register numbers
constexpr uint64_t kRegRsp = 7;
constexpr uint64_t kRegRa = 16;
constexpr size_t kMaxRememberDepth = 16;
// Offsets and alignment factors beyond these describe no real frame: offsets are clamped to them
// (MakeRow then leaves such a row undescribed) and CIEs with larger factors are refused, so that
// no product overflows.
constexpr int64_t kMaxOffset = int64_t{1} << 31;
constexpr int64_t kMaxAlign = 1024;

int64_t Clamp(int64_t v) { return std::clamp(v, -kMaxOffset, kMaxOffset); }
int64_t ClampU(uint64_t v) {
  return v > static_cast<uint64_t>(kMaxOffset) ? kMaxOffset : static_cast<int64_t>(v);
}

// A bounded cursor over the section: every read checks the end; a failed read sets `bad`.
class Cursor {
 public:
  Cursor(std::span<const uint8_t> bytes, size_t pos, size_t end)
      : bytes_(bytes), pos_(pos), end_(std::min(end, bytes.size())) {
    if (pos_ > end_) {  // a range that ends before it starts reads nothing
      pos_ = end_;
      bad_ = true;
    }
  }
  bool bad() const { return bad_; }
  bool done() const { return bad_ || pos_ >= end_; }
  size_t pos() const { return pos_; }
  void Skip(uint64_t n) {
    if (n > end_ - pos_) {
      bad_ = true;
      pos_ = end_;
    } else {
      pos_ += n;
    }
  }
  uint64_t Fixed(size_t n) {  // little endian, n <= 8
    if (bad_ || n > end_ - pos_) {
      bad_ = true;
      return 0;
    }
    uint64_t v = 0;
    std::memcpy(&v, bytes_.data() + pos_, n);
    pos_ += n;
    return v;
  }
  uint64_t Uleb() {
    uint64_t v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      const uint64_t b = Fixed(1);
      if (bad_) return 0;
      v |= (b & 0x7f) << shift;
      if ((b & 0x80) == 0) return v;
    }
    bad_ = true;
    return 0;
  }
  int64_t Sleb() {
    uint64_t u = 0;
    int shift = 0;
    uint64_t b = 0;
    do {
      if (shift >= 64) {
        bad_ = true;
        return 0;
      }
      b = Fixed(1);
      if (bad_) return 0;
      u |= (b & 0x7f) << shift;
      shift += 7;
    } while (b & 0x80);
    if (shift < 64 && (b & 0x40)) u |= ~uint64_t{0} << shift;  // sign-extend
    return static_cast<int64_t>(u);
  }
  std::string CString() {
    std::string s;
    while (true) {
      const uint64_t c = Fixed(1);
      if (bad_ || c == 0 || s.size() > 16) break;
      s.push_back(static_cast<char>(c));
    }
    return s;
  }
  // A pointer in DWARF's exception-header encoding; pc-relative ones relative to `vaddr` of the
  // section start plus the field's position.
  uint64_t Pointer(uint8_t encoding, uint64_t vaddr) {
    const uint64_t field = vaddr + pos_;
    uint64_t v = 0;
    switch (encoding & 0x0f) {
      case 0x00:
        v = Fixed(8);
        break;
      case 0x01:
        v = Uleb();
        break;
      case 0x02:
        v = Fixed(2);
        break;
      case 0x03:
        v = Fixed(4);
        break;
      case 0x04:
        v = Fixed(8);
        break;
      case 0x09:
        v = static_cast<uint64_t>(Sleb());
        break;
      case 0x0a:
        v = static_cast<uint64_t>(static_cast<int64_t>(static_cast<int16_t>(Fixed(2))));
        break;
      case 0x0b:
        v = static_cast<uint64_t>(static_cast<int64_t>(static_cast<int32_t>(Fixed(4))));
        break;
      case 0x0c:
        v = Fixed(8);
        break;
      default:
        bad_ = true;
        return 0;
    }
    switch (encoding & 0x70) {
      case 0x00:
        return v;
      case 0x10:
        return field + v;  // pcrel
      default:
        bad_ = true;
        return 0;  // datarel/textrel/funcrel: not in .eh_frame FDE ranges
    }
  }

 private:
  std::span<const uint8_t> bytes_;
  size_t pos_;
  size_t end_;
  bool bad_ = false;
};

struct Cie {
  uint64_t code_align = 1;
  int64_t data_align = -8;
  uint64_t ra_register = kRegRa;
  uint8_t fde_encoding = 0;  // absptr
  bool has_augmentation_data = false;
  size_t instructions = 0, end = 0;  // the initial instructions
};

// What the CFA program says at one point.
struct State {
  CfiRow::Cfa cfa = CfiRow::Cfa::kUnknown;
  int64_t cfa_offset = 0;
  bool rbp_saved = false, rbp_unknown = false, outermost = false;
  int64_t rbp_offset = 0;
  int64_t ra_offset = -8;
};

CfiRow MakeRow(uint64_t pc, const State& state) {
  CfiRow row;
  row.pc = pc;
  row.cfa = state.cfa;
  row.rbp_saved = state.rbp_saved;
  row.rbp_unknown = state.rbp_unknown;
  row.outermost = state.outermost;
  const auto fits = [](int64_t v) { return v >= INT32_MIN && v <= INT32_MAX; };
  if (!fits(state.cfa_offset) || !fits(state.rbp_offset) || !fits(state.ra_offset)) {
    row.cfa = CfiRow::Cfa::kUnknown;  // no frame is that large
    row.outermost = false;
    return row;
  }
  row.cfa_offset = static_cast<int32_t>(state.cfa_offset);
  row.rbp_offset = static_cast<int32_t>(state.rbp_offset);
  row.ra_offset = static_cast<int32_t>(state.ra_offset);
  return row;
}

absl::StatusOr<Cie> ParseCie(std::span<const uint8_t> bytes, size_t start, size_t end,
                             uint64_t vaddr) {
  Cursor c(bytes, start, end);
  Cie cie;
  const uint64_t version = c.Fixed(1);
  const std::string augmentation = c.CString();
  if (version != 1 && version != 3) return absl::InvalidArgumentError("CIE version");
  cie.code_align = c.Uleb();
  cie.data_align = c.Sleb();
  cie.ra_register = version == 1 ? c.Fixed(1) : c.Uleb();
  if (!augmentation.empty() && augmentation[0] == 'z') {
    cie.has_augmentation_data = true;
    const uint64_t length = c.Uleb();
    const size_t data_end = c.pos() + length;
    for (size_t i = 1; i < augmentation.size() && !c.bad(); ++i) {
      switch (augmentation[i]) {
        case 'R':
          cie.fde_encoding = static_cast<uint8_t>(c.Fixed(1));
          break;
        case 'L':
          c.Fixed(1);
          break;
        case 'P': {
          const uint8_t encoding = static_cast<uint8_t>(c.Fixed(1));
          c.Pointer(encoding & 0x7f, vaddr);  // indirect bit: the pointer is read as is
          break;
        }
        case 'S':
        case 'B':
          break;
        default:
          i = augmentation.size();
          break;  // unknown: the length says where data ends
      }
    }
    if (c.bad() || data_end > end || data_end < c.pos()) {
      return absl::InvalidArgumentError("CIE augmentation");
    }
    c.Skip(data_end - c.pos());
  } else if (!augmentation.empty() && augmentation != "eh") {
    return absl::InvalidArgumentError("CIE augmentation not known");
  }
  if (c.bad() || cie.code_align == 0 || cie.code_align > static_cast<uint64_t>(kMaxAlign) ||
      cie.data_align < -kMaxAlign || cie.data_align > kMaxAlign) {
    return absl::InvalidArgumentError("malformed CIE");
  }
  cie.instructions = c.pos();
  cie.end = end;
  return cie;
}

// Runs one CFA program over `state`, appending a row at each advance. `initial` is the state after
// the CIE's instructions (DW_CFA_restore's target). Returns false on malformed input.
bool RunProgram(std::span<const uint8_t> bytes, size_t start, size_t end, const Cie& cie,
                uint64_t vaddr, uint64_t pc_begin, uint64_t pc_end, const State& initial,
                State& state, uint64_t& loc, std::vector<CfiRow>& rows, size_t& budget) {
  Cursor c(bytes, start, end);
  std::vector<State> remembered;
  auto emit = [&](uint64_t new_loc) {
    if (new_loc <= loc) return;
    if (loc >= pc_begin && loc < pc_end && budget > 0) {
      budget--;
      rows.push_back(MakeRow(loc, state));
    }
    loc = new_loc;
  };
  auto set_register = [&](uint64_t reg, bool saved, bool unknown, int64_t offset) {
    if (reg == kRegRbp) {
      state.rbp_saved = saved;
      state.rbp_unknown = unknown;
      state.rbp_offset = offset;
    } else if (reg == cie.ra_register) {
      if (unknown || !saved) state.cfa = CfiRow::Cfa::kUnknown;  // the return address elsewhere
      state.ra_offset = offset;
    }
  };
  auto restore = [&](uint64_t reg) {
    if (reg == kRegRbp) {
      state.rbp_saved = initial.rbp_saved;
      state.rbp_unknown = initial.rbp_unknown;
      state.rbp_offset = initial.rbp_offset;
    } else if (reg == cie.ra_register) {
      state.ra_offset = initial.ra_offset;
    }
  };
  auto def_cfa_register = [&](uint64_t reg) {
    state.cfa = reg == kRegRsp   ? CfiRow::Cfa::kRsp
                : reg == kRegRbp ? CfiRow::Cfa::kRbp
                                 : CfiRow::Cfa::kUnknown;
  };
  while (!c.done()) {
    const uint8_t op = static_cast<uint8_t>(c.Fixed(1));
    const uint8_t low = op & 0x3f;
    switch (op & 0xc0) {
      case 0x40:
        emit(loc + low * cie.code_align);
        continue;   // advance_loc
      case 0x80: {  // offset
        const int64_t off = ClampU(c.Uleb()) * cie.data_align;
        set_register(low, true, false, off);
        continue;
      }
      case 0xc0:
        restore(low);
        continue;
      default:
        break;
    }
    switch (op) {
      case 0x00:
        break;  // nop
      case 0x01:
        emit(c.Pointer(cie.fde_encoding, vaddr));
        break;  // set_loc
      case 0x02:
        emit(loc + c.Fixed(1) * cie.code_align);
        break;
      case 0x03:
        emit(loc + c.Fixed(2) * cie.code_align);
        break;
      case 0x04:
        emit(loc + c.Fixed(4) * cie.code_align);
        break;
      case 0x05: {  // offset_extended
        const uint64_t reg = c.Uleb();
        set_register(reg, true, false, ClampU(c.Uleb()) * cie.data_align);
        break;
      }
      case 0x06:
        restore(c.Uleb());
        break;      // restore_extended
      case 0x07: {  // undefined
        const uint64_t reg = c.Uleb();
        if (reg == cie.ra_register) {
          state.outermost = true;
        } else {
          set_register(reg, false, true, 0);
        }
        break;
      }
      case 0x08:
        set_register(c.Uleb(), false, false, 0);
        break;      // same_value
      case 0x09: {  // register
        const uint64_t reg = c.Uleb();
        c.Uleb();
        set_register(reg, false, true, 0);
        break;
      }
      case 0x0a:  // remember_state
        if (remembered.size() >= kMaxRememberDepth) return false;
        remembered.push_back(state);
        break;
      case 0x0b:  // restore_state
        if (remembered.empty()) return false;
        state = remembered.back();
        remembered.pop_back();
        break;
      case 0x0c: {  // def_cfa
        def_cfa_register(c.Uleb());
        state.cfa_offset = ClampU(c.Uleb());
        break;
      }
      case 0x0d:
        def_cfa_register(c.Uleb());
        break;
      case 0x0e:
        state.cfa_offset = ClampU(c.Uleb());
        break;
      case 0x0f:  // def_cfa_expression: not described
        c.Skip(c.Uleb());
        state.cfa = CfiRow::Cfa::kUnknown;
        break;
      case 0x10:    // expression
      case 0x16: {  // val_expression
        const uint64_t reg = c.Uleb();
        c.Skip(c.Uleb());
        set_register(reg, false, true, 0);
        break;
      }
      case 0x11: {  // offset_extended_sf
        const uint64_t reg = c.Uleb();
        set_register(reg, true, false, Clamp(c.Sleb()) * cie.data_align);
        break;
      }
      case 0x12: {  // def_cfa_sf
        def_cfa_register(c.Uleb());
        state.cfa_offset = Clamp(c.Sleb()) * cie.data_align;
        break;
      }
      case 0x13:
        state.cfa_offset = Clamp(c.Sleb()) * cie.data_align;
        break;      // def_cfa_offset_sf
      case 0x14:    // val_offset
      case 0x15: {  // val_offset_sf
        const uint64_t reg = c.Uleb();
        if (op == 0x14)
          c.Uleb();
        else
          c.Sleb();
        set_register(reg, false, true, 0);
        break;
      }
      case 0x2e:
        c.Uleb();
        break;      // GNU_args_size
      case 0x2f: {  // GNU_negative_offset_extended
        const uint64_t reg = c.Uleb();
        set_register(reg, true, false, -ClampU(c.Uleb()) * cie.data_align);
        break;
      }
      default:
        return false;
    }
  }
  return !c.bad();
}

}  // namespace

absl::StatusOr<CfiTable> CfiTable::Parse(std::span<const uint8_t> eh_frame, uint64_t vaddr,
                                         size_t max_rows) {
  CfiTable table;
  std::map<size_t, Cie> cies;  // by section offset
  std::vector<CfiRow> ends;    // where each FDE's range ends: nothing described from there
  size_t budget = std::min(max_rows, kMaxRows);
  size_t pos = 0;
  while (pos + 4 <= eh_frame.size()) {
    Cursor c(eh_frame, pos, eh_frame.size());
    uint64_t length = c.Fixed(4);
    if (length == 0) break;  // the terminator
    if (length == 0xffffffff) length = c.Fixed(8);
    const size_t body = c.pos();
    if (c.bad() || length > eh_frame.size() - body) {
      return absl::InvalidArgumentError(".eh_frame entry past the section");
    }
    const size_t end = body + length;
    const uint64_t id = c.Fixed(4);
    if (id == 0) {
      absl::StatusOr<Cie> cie = ParseCie(eh_frame, c.pos(), end, vaddr);
      if (cie.ok()) cies[pos] = *cie;  // a CIE not understood: its FDEs are skipped
    } else if (id <= body) {
      auto cie = cies.find(body - id);
      if (cie != cies.end()) {
        const uint64_t pc_begin = c.Pointer(cie->second.fde_encoding, vaddr);
        const uint64_t pc_range = c.Pointer(cie->second.fde_encoding & 0x0f, vaddr);
        if (cie->second.has_augmentation_data) c.Skip(c.Uleb());
        if (!c.bad() && pc_range > 0 && pc_begin + pc_range > pc_begin) {
          State initial;
          uint64_t loc = pc_begin;
          if (!RunProgram(eh_frame, cie->second.instructions, cie->second.end, cie->second, vaddr,
                          pc_begin, pc_begin + pc_range, initial, initial, loc, table.rows_,
                          budget)) {
            return absl::InvalidArgumentError("malformed CIE program");
          }
          State state = initial;
          loc = pc_begin;
          if (!RunProgram(eh_frame, c.pos(), end, cie->second, vaddr, pc_begin, pc_begin + pc_range,
                          initial, state, loc, table.rows_, budget)) {
            return absl::InvalidArgumentError("malformed FDE program");
          }
          // The last row holds to the FDE's end.
          if (loc >= pc_begin && loc < pc_begin + pc_range && budget > 0) {
            budget--;
            table.rows_.push_back(MakeRow(loc, state));
          }
          if (budget > 0) {  // the end marks count against the bound like rows
            budget--;
            CfiRow gap;
            gap.pc = pc_begin + pc_range;
            ends.push_back(gap);
          }
        }
      }
    }
    if (budget == 0) break;
    pos = end;
  }
  // Each FDE's end, unless another FDE's row starts there: the end marks first, so a stable sort
  // keeps a row at the same pc after its mark, and the later one wins below.
  std::vector<CfiRow> all = std::move(ends);
  all.insert(all.end(), table.rows_.begin(), table.rows_.end());
  std::vector<CfiRow>().swap(table.rows_);  // at most two copies of the rows at any time
  std::stable_sort(all.begin(), all.end(),
                   [](const CfiRow& a, const CfiRow& b) { return a.pc < b.pc; });
  size_t kept = 0;
  for (const CfiRow& row : all) {
    if (kept > 0 && all[kept - 1].pc == row.pc) {
      all[kept - 1] = row;
    } else {
      all[kept++] = row;
    }
  }
  all.resize(kept);
  all.shrink_to_fit();
  table.rows_ = std::move(all);
  return table;
}

const CfiRow* CfiTable::Find(uint64_t pc) const {
  auto it = std::upper_bound(rows_.begin(), rows_.end(), pc,
                             [](uint64_t v, const CfiRow& r) { return v < r.pc; });
  if (it == rows_.begin()) return nullptr;
  return &*std::prev(it);
}

std::optional<FrameState> CfiCaller(const CfiRow& row, const FrameState& frame,
                                    const StackCopy& copy) {
  if (row.outermost) return FrameState{0, frame.sp + 8, 0};  // the thread's first frame
  uint64_t base = 0;
  switch (row.cfa) {
    case CfiRow::Cfa::kRsp:
      base = frame.sp;
      break;
    case CfiRow::Cfa::kRbp:
      base = frame.fp;
      break;
    case CfiRow::Cfa::kUnknown:
      return std::nullopt;
  }
  const uint64_t cfa = base + static_cast<uint64_t>(static_cast<int64_t>(row.cfa_offset));
  const std::optional<uint64_t> ret =
      copy.Word(cfa + static_cast<uint64_t>(static_cast<int64_t>(row.ra_offset)));
  if (!ret) return std::nullopt;
  uint64_t fp = frame.fp;
  if (row.rbp_saved) {
    const std::optional<uint64_t> saved =
        copy.Word(cfa + static_cast<uint64_t>(static_cast<int64_t>(row.rbp_offset)));
    if (!saved) return std::nullopt;
    fp = *saved;
  } else if (row.rbp_unknown) {
    fp = 0;  // not known: a caller found by rbp will not be found
  }
  return FrameState{*ret, cfa, fp};
}

}  // namespace vtctx::reader
