package io.vtctx.internal;

import java.io.BufferedReader;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * What the CPU does fast, read once from {@code /proc/cpuinfo} (Linux, like the agent). Used to
 * pick between equivalent code paths; a wrong answer costs speed, never correctness.
 *
 * <p>Why a file and not the platform: no Java API reports the CPU's vendor, family or features,
 * and the JVM's own choice does not answer the question. HotSpot's C2 (JDK 21 to 25) emits PEXT
 * for {@link Long#compress} on every CPU with BMI2 (its {@code UseBMI2Instructions}), Zen 1 and 2
 * included, where that is microcode slower than the shifts (OpenJDK's JDK-8373613 proposes to gate
 * it on a fast-BMI2 feature). The choice is worth 34.3 against 21.4 ns per new trace's decode
 * (docs/results/shim.md, "Decoding"); reading the first processor's block costs one short file
 * read at class initialization, on the first decode.
 */
final class CpuFeatures {
  /** Overrides the detection: {@code -Dio.vtctx.bitCompress=true|false}. */
  static final String BIT_COMPRESS_PROPERTY = "io.vtctx.bitCompress";

  private CpuFeatures() {}

  /**
   * True if {@link Long#compress} is one fast instruction here: x86-64 PEXT (BMI2), which HotSpot's
   * C2 uses for it, on Intel (3 cycles since Haswell) or AMD from Zen 3 (family 0x19) on. Zen 1 and
   * 2 (and Hygon) run PEXT as a slow microcode loop, other CPUs have no such instruction, and
   * without it {@code Long.compress} is a loop in Java: false there.
   */
  static boolean fastBitCompress() {
    String override = System.getProperty(BIT_COMPRESS_PROPERTY);
    if (override != null) return Boolean.parseBoolean(override.strip());
    return fastBitCompress(System.getProperty("os.arch", ""), firstProcessor());
  }

  // The first processor's block of /proc/cpuinfo (up to the first blank line), or "" if it cannot
  // be read. Stopping there spares the kernel formatting the blocks of all other CPUs (it formats
  // them as the file is read), a cost that grows with the number of CPUs.
  private static String firstProcessor() {
    StringBuilder block = new StringBuilder();
    try (BufferedReader in =
        Files.newBufferedReader(Path.of("/proc/cpuinfo"), StandardCharsets.ISO_8859_1)) {
      for (String line = in.readLine(); line != null && !line.isBlank(); line = in.readLine()) {
        block.append(line).append('\n');
      }
    } catch (IOException | SecurityException | UnsupportedOperationException e) {
      return "";
    }
    return block.toString();
  }

  /** {@link #fastBitCompress()} for this {@code os.arch} and {@code /proc/cpuinfo} text. */
  static boolean fastBitCompress(String osArch, String cpuinfo) {
    if (!osArch.equals("amd64") && !osArch.equals("x86_64")) return false;
    String vendor = field(cpuinfo, "vendor_id");
    String flags = field(cpuinfo, "flags");
    if (vendor == null || flags == null || !(" " + flags + " ").contains(" bmi2 ")) return false;
    if (vendor.equals("GenuineIntel")) return true;
    if (!vendor.equals("AuthenticAMD")) return false;
    String family = field(cpuinfo, "cpu family");
    try {
      return family != null && Integer.parseInt(family) >= 0x19;
    } catch (NumberFormatException e) {
      return false;
    }
  }

  // The value of the first "name : value" line for this name (the first processor's).
  private static String field(String cpuinfo, String name) {
    for (String line : cpuinfo.split("\n")) {
      int colon = line.indexOf(':');
      if (colon > 0 && line.substring(0, colon).strip().equals(name)) {
        return line.substring(colon + 1).strip();
      }
    }
    return null;
  }
}
