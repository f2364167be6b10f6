package io.vtctx.otel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * The packaged jar as the named module io.vtctx (module path), with the vtctx agent: it resolves
 * without OpenTelemetry (which it requires only statically) and with it, publishes, and keeps
 * io.vtctx.internal out of reach of every other module ({@link io.vtctx.testing.ModulePathProbe}
 * runs in a JVM of its own, on this JVM's java). From Java 24 with --illegal-native-access=deny
 * and no native access for io.vtctx: its natives are bound from the agent library, which JEP 472
 * does not restrict (only the class path's unnamed module, which loads the test's carrier probe
 * library, gets native access).
 */
class ModulePathIT {
  private static final String JAR = System.getProperty("vtctx.test.shimJar");
  private static final String AGENT = System.getProperty("vtctx.test.agent");

  /**
   * Without OpenTelemetry. Java 21's resolver also wants the package of a service a module provides
   * in a module it reads, {@code requires static} or not (Java 25 exempts a missing static one):
   * there the autoconfigure SPI's jar (no other dependency) must be on the module path too.
   */
  @Test
  void withoutOpenTelemetry() throws Exception {
    List<String> modulePath = new ArrayList<>(List.of(JAR));
    if (Runtime.version().feature() < 25) {
      openTelemetryJars().stream()
          .filter(j -> j.contains("opentelemetry-sdk-extension-autoconfigure-spi"))
          .forEach(modulePath::add);
    }
    assertEquals("ModulePathProbe: PASS", probe(modulePath, List.of()));
  }

  @Test
  void withOpenTelemetry() throws Exception {
    List<String> modulePath = new ArrayList<>(List.of(JAR));
    modulePath.addAll(openTelemetryJars());
    assertEquals("ModulePathProbe: PASS otel", probe(modulePath, List.of("otel")));
  }

  // This JVM's OpenTelemetry jars (the test class path), as automatic modules.
  private static List<String> openTelemetryJars() {
    List<String> jars =
        Arrays.stream(System.getProperty("java.class.path").split(File.pathSeparator))
            .filter(p -> p.contains("/io/opentelemetry/") && p.endsWith(".jar"))
            .collect(Collectors.toList());
    assertFalse(jars.isEmpty(), "no OpenTelemetry jar on the test class path");
    return jars;
  }

  private static String probe(List<String> modulePath, List<String> extra) throws Exception {
    assertTrue(Files.isRegularFile(Path.of(JAR)), "no shim jar at " + JAR);
    String testClasses =
        Path.of(ModulePathIT.class.getProtectionDomain().getCodeSource().getLocation().toURI())
            .toString();
    List<String> command = new ArrayList<>();
    command.add(ProcessHandle.current().info().command().orElseThrow());
    command.add("-agentpath:" + AGENT + "=log=error");
    command.add("--module-path");
    command.add(String.join(File.pathSeparator, modulePath));
    command.add("--add-modules");
    command.add("ALL-MODULE-PATH");
    command.add("--enable-native-access=ALL-UNNAMED");
    if (Runtime.version().feature() >= 24) command.add("--illegal-native-access=deny");
    command.add("-Djava.library.path=" + System.getProperty("java.library.path"));
    command.add("-cp");
    command.add(testClasses);
    command.add("io.vtctx.testing.ModulePathProbe");
    command.add(AGENT);
    command.addAll(extra);
    Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertTrue(p.waitFor(120, TimeUnit.SECONDS), "probe did not finish");
    assertEquals(0, p.exitValue(), "probe failed:\n" + out);
    return out.strip();
  }
}
