package io.vtctx.internal;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

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
  void propertyOverridesTheDetection() {
    // One of the two overrides contradicts whatever this machine detects.
    String before = System.getProperty(CpuFeatures.BIT_COMPRESS_PROPERTY);
    try {
      System.setProperty(CpuFeatures.BIT_COMPRESS_PROPERTY, "true");
      assertTrue(CpuFeatures.fastBitCompress());
      System.setProperty(CpuFeatures.BIT_COMPRESS_PROPERTY, " false ");
      assertFalse(CpuFeatures.fastBitCompress());
    } finally {
      if (before == null) {
        System.clearProperty(CpuFeatures.BIT_COMPRESS_PROPERTY);
      } else {
        System.setProperty(CpuFeatures.BIT_COMPRESS_PROPERTY, before);
      }
    }
  }
}
