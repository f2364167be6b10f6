package io.vtctx.otel;

import io.opentelemetry.sdk.trace.ReadableSpan;
import io.vtctx.internal.Utf8;
import java.lang.System.Logger.Level;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * Which span attributes the vtctx storage copies into records: {@value #PROPERTY} (environment
 * variable {@value #ENV}), a comma-separated list of attribute names such as {@code
 * http.route,enduser.id}. Unset, the default is {@code http.route} when the shim runs as an
 * OpenTelemetry Java agent extension (the agent's HTTP server instrumentations set it, and {@code
 * vtctx-reader profile --group-by http.route} then ranks endpoints), else nothing. Empty: nothing
 * is copied and the vtctx storage costs what it did without this feature.
 *
 * <p>Sources, the last one applied wins: the system property, else the environment variable, read
 * when this class loads; then the SDK autoconfiguration's value of the property (it also sees the
 * system property, the environment and configuration files), if set; then {@link
 * VtctxContextStorage#setRecordAttributes}. A change takes effect in each thread at its next span
 * change (keys no longer configured are then removed from its record).
 */
final class RecordAttributeConfig {
  static final String PROPERTY = "otel.vtctx.record.attributes";
  static final String ENV = "OTEL_VTCTX_RECORD_ATTRIBUTES";
  private static final System.Logger LOG = System.getLogger("io.vtctx");

  /** What is copied by default under the OpenTelemetry Java agent (before `keys`: init order). */
  static final List<String> JAVAAGENT_DEFAULT = List.of("http.route");

  private static volatile CopiedKeys keys = fromSystem();

  private RecordAttributeConfig() {}

  /** The current configuration ({@link CopiedKeys#NONE} if nothing is copied). */
  static CopiedKeys keys() {
    return keys;
  }

  static void set(Collection<String> names) {
    keys = of(names);
  }

  private static CopiedKeys fromSystem() {
    String value = System.getProperty(PROPERTY);
    if (value == null) value = System.getenv(ENV);
    if (value == null) return inJavaagentExtension() ? of(JAVAAGENT_DEFAULT) : CopiedKeys.NONE;
    return of(List.of(value.split(",")));
  }

  // The Java agent loads extensions with its own class loader (a class name in a string is not
  // remapped, unlike class literals).
  private static final String JAVAAGENT_EXTENSION_LOADER =
      "io.opentelemetry.javaagent.tooling.ExtensionClassLoader";

  private static boolean inJavaagentExtension() {
    ClassLoader loader = RecordAttributeConfig.class.getClassLoader();
    return loader != null && loader.getClass().getName().equals(JAVAAGENT_EXTENSION_LOADER);
  }

  /** Trims names, drops empty ones and repeats, refuses names no record key can have. */
  private static CopiedKeys of(Collection<String> names) {
    Set<String> unique = new LinkedHashSet<>();
    for (String name : names) {
      String n = name.strip();
      if (n.isEmpty()) continue;
      if (Utf8.length(n, 255) > 255) {
        LOG.log(
            Level.WARNING,
            "vtctx: {0}: ''{1}'' is longer than 255 UTF-8 bytes, ignored",
            PROPERTY,
            n);
        continue;
      }
      unique.add(n);
    }
    if (unique.isEmpty()) return CopiedKeys.NONE;
    if (!sdkPresent()) {
      LOG.log(
          Level.WARNING,
          "vtctx: {0} is set but the OpenTelemetry SDK (opentelemetry-sdk-trace) is not on the"
              + " class path: span attributes are only readable from SDK spans; nothing is copied",
          PROPERTY);
      return CopiedKeys.NONE;
    }
    return new CopiedKeys(new ArrayList<>(unique));
  }

  // A class literal, not a name: inside the OpenTelemetry Java agent, extension bytecode is
  // remapped to the agent's packages, class names in strings are not.
  private static boolean sdkPresent() {
    try {
      return ReadableSpan.class != null;
    } catch (LinkageError e) { // NoClassDefFoundError: only the API is on the class path
      return false;
    }
  }
}
