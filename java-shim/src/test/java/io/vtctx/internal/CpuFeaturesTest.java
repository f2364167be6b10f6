package io.vtctx.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

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

  // PEXT is fast on Intel with BMI2 and on AMD from Zen 3 (family 0x19) on; microcoded before.
  @ParameterizedTest(name = "{0} {1} family {2} [{3}] -> {4}")
  @CsvSource({
    "amd64,   GenuineIntel, 6,    bmi1 bmi2, true",
    "x86_64,  GenuineIntel, 6,    bmi2,      true",
    "amd64,   AuthenticAMD, 0x17, bmi2,      false", // Zen 2
    "amd64,   AuthenticAMD, 0x19, bmi2,      true", // Zen 3/4
    "amd64,   AuthenticAMD, 0x1a, bmi2,      true", // Zen 5
    "amd64,   HygonGenuine, 0x18, bmi2,      false",
    "amd64,   GenuineIntel, 6,    bmi1,      false",
    "amd64,   GenuineIntel, 6,    xbmi2,     false",
    "aarch64, GenuineIntel, 6,    bmi2,      false",
  })
  void fastBitCompressFromVendorFamilyAndFlags(
      String arch, String vendor, String family, String flags, boolean fast) {
    String cpuinfo = cpuinfo(vendor, Integer.decode(family), flags);
    assertEquals(fast, CpuFeatures.fastBitCompress(arch, cpuinfo));
  }

  @Test
  void unparseableCpuinfoIsNotFast() {
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
