package io.vtctx.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

class CpuFeaturesTest {
  private static String cpuinfo(String vendor, int family, String flags) {
    return "processor\t: 0\nvendor_id\t: "
        + vendor
        + "\ncpu family\t: "
        + family
        + "\nmodel name\t: test\nflags\t\t: fpu sse2 "
        + flags
        + " avx2\n\nprocessor\t: 1\nvendor_id\t: "
        + vendor
        + "\n";
  }

  @Test
  void intelWithBmi2() {
    assertTrue(CpuFeatures.fastBitCompress("amd64", cpuinfo("GenuineIntel", 6, "bmi1 bmi2")));
    assertTrue(CpuFeatures.fastBitCompress("x86_64", cpuinfo("GenuineIntel", 6, "bmi2")));
  }

  @Test
  void amdOnlyFromZen3() {
    // Zen 2, Zen 3/4, Zen 5
    assertFalse(CpuFeatures.fastBitCompress("amd64", cpuinfo("AuthenticAMD", 0x17, "bmi2")));
    assertTrue(CpuFeatures.fastBitCompress("amd64", cpuinfo("AuthenticAMD", 0x19, "bmi2")));
    assertTrue(CpuFeatures.fastBitCompress("amd64", cpuinfo("AuthenticAMD", 0x1a, "bmi2")));
    assertFalse(CpuFeatures.fastBitCompress("amd64", cpuinfo("HygonGenuine", 0x18, "bmi2")));
  }

  @Test
  void noBmi2OrNotX86() {
    assertFalse(CpuFeatures.fastBitCompress("amd64", cpuinfo("GenuineIntel", 6, "bmi1")));
    assertFalse(CpuFeatures.fastBitCompress("amd64", cpuinfo("GenuineIntel", 6, "xbmi2")));
    assertFalse(CpuFeatures.fastBitCompress("aarch64", cpuinfo("GenuineIntel", 6, "bmi2")));
    assertFalse(CpuFeatures.fastBitCompress("amd64", ""));
    assertFalse(CpuFeatures.fastBitCompress("amd64", "vendor_id: AuthenticAMD\nflags: bmi2\n"));
  }

  @Test
  void thisMachineAsItsCpuinfoSays() throws IOException {
    // The decoder in use follows the detection (unless the property overrides it).
    String cpuinfo = Files.readString(Path.of("/proc/cpuinfo"));
    boolean expected =
        System.getProperty(CpuFeatures.BIT_COMPRESS_PROPERTY) != null
            ? Boolean.getBoolean(CpuFeatures.BIT_COMPRESS_PROPERTY)
            : CpuFeatures.fastBitCompress(System.getProperty("os.arch"), cpuinfo);
    assertEquals(expected, HexSwar.usesCompress());
  }
}
