#include "loadReport.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "ownedFile.h"
#include "vtctx/loadReport.h"
#include "vtctx/version.h"

namespace vtctx {

std::string ActiveReportLine(const ActiveReport& r) {
  protocol::LoadReport report;
  report.active = true;
  report.fields = {{"vtctx", VTCTX_VERSION},
                   {"load", r.load},
                   {"java", r.java_version},
                   {"record_size", std::to_string(r.record_size)},
                   {"records", std::to_string(r.records)},
                   {"bind", r.bind}};
  report.text = r.options;
  return protocol::EncodeLoadReport(report);
}

std::string WithoutReport(const char* options) {
  std::string out;
  std::string_view rest = options ? options : "";
  while (!rest.empty()) {
    const size_t comma = rest.find(',');
    const std::string_view item = rest.substr(0, comma);
    rest = comma == std::string_view::npos ? std::string_view() : rest.substr(comma + 1);
    if (item.empty() || item.substr(0, 7) == "report=") continue;
    if (!out.empty()) out += ',';
    out.append(item);
  }
  return out;
}

std::string InactiveReportLine(const std::string& reason) {
  protocol::LoadReport report;
  report.fields = {{"vtctx", VTCTX_VERSION}};
  report.text = reason;
  return protocol::EncodeLoadReport(report);
}

std::string WriteLoadReport(const std::string& path, const std::string& line) {
  // The attacher created the file; never created here, so a report path removed meanwhile (an
  // attacher that gave up) leaves nothing behind. Never a FIFO: that would block the JVM's attach
  // listener for good.
  const OwnedFile file = OpenOwnedFileForWriting(path, /*create=*/false);
  if (file.fd < 0) return "cannot use report file " + path + ": " + file.error;
  const int fd = file.fd;
  if (ftruncate(fd, 0) != 0) {
    const int err = errno;
    close(fd);
    return "cannot write report file " + path + ": " + strerror(err);
  }
  const std::string text = line + "\n";
  size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const int err = errno;
      close(fd);
      return "cannot write report file " + path + ": " + strerror(err);
    }
    done += static_cast<size_t>(n);
  }
  close(fd);
  return {};
}

}  // namespace vtctx
