// The flag table (commands/readerFlags.h) drives parsing, help and docs/reader.md's flags table.
#include <gtest/gtest.h>

#include <sstream>
#include <string>

#include "commands/commandOptions.h"
#include "commands/readerFlags.h"
#include "docFile.h"

namespace vtctx::reader {
namespace {

std::string ReaderDoc() { return testing::DocNamedBy("VTCTX_READER_DOC"); }

// docs/reader.md's flags table is the table, row by row and in its order, and nothing else.
TEST(ReaderFlagsDoc, EveryFlagIsDocumented) {
  const std::string doc = ReaderDoc();
  const std::string header = "| flag | commands | default | meaning |";
  size_t at = doc.find(header);
  ASSERT_NE(at, std::string::npos) << "docs/reader.md has no flags table";
  const size_t end = doc.find("\n\n", at);
  int rows = 0;
  for (const ReaderFlag& flag : ReaderFlags()) {
    const std::string row = FlagDocRow(flag);
    const size_t found = doc.find(row, at);
    EXPECT_TRUE(found != std::string::npos && found < end) << "no row, or out of order:\n" << row;
    if (found != std::string::npos) at = found;
    ++rows;
  }
  int doc_rows = 0;
  for (size_t p = doc.find("\n| `--", doc.find(header)); p != std::string::npos && p < end;
       p = doc.find("\n| `--", p + 1)) {
    ++doc_rows;
  }
  EXPECT_EQ(doc_rows, rows) << "the docs table has rows the table does not";
}

// Every flag a command takes is in its help; the parsers take the table's defaults.
TEST(ReaderFlags, DriveHelpAndDefaults) {
  for (ReaderCommand c : {kResolve, kSyscalls, kProfile, kAttach}) {
    const std::string help = FlagsHelp(c);
    for (const ReaderFlag& f : ReaderFlags()) {
      if ((f.commands & c) == 0) continue;
      EXPECT_NE(help.find(std::string("  --") + std::string(f.name)), std::string::npos)
          << f.name << " missing from the help of command " << c;
    }
    for (const std::string& line : [&] {
           std::vector<std::string> lines;
           std::stringstream in(help);
           for (std::string l; std::getline(in, l);) lines.push_back(l);
           return lines;
         }()) {
      EXPECT_LE(line.size(), 100u) << line;
    }
  }
  char pid[] = "--pid", one[] = "1";
  char* args[] = {pid, one};
  absl::StatusOr<ProfileOptions> profile = ParseProfileOptions(args);
  ASSERT_TRUE(profile.ok()) << profile.status();
  EXPECT_EQ(std::to_string(profile->hz), std::string(FlagDefault(kProfile, "hz")));
  EXPECT_EQ(std::to_string(profile->run.ringbuf_mb),
            std::string(FlagDefault(kProfile, "ringbuf-mb")));
  absl::StatusOr<AttachOptions> attach = ParseAttachOptions(args);
  ASSERT_TRUE(attach.ok());
  EXPECT_EQ(std::to_string(static_cast<int>(attach->load.timeout_s)),
            std::string(FlagDefault(kAttach, "timeout")));
  EXPECT_EQ(LongFlagName(kProfile, "-d"), "duration");
  EXPECT_EQ(LongFlagName(kResolve, "-d"), "");  // resolve has no --duration
}

}  // namespace
}  // namespace vtctx::reader
