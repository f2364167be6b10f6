package io.vtctx.testing;

import io.vtctx.ThreadContext;
import io.vtctx.internal.ThreadRecord;
import io.vtctx.test.CarrierProbe;
import java.lang.invoke.MethodHandles;
import java.lang.reflect.InaccessibleObjectException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;

/**
 * Run by ModulePathIT in a JVM of its own, with the shim jar on the MODULE path (the module
 * io.vtctx) and this class on the class path (the unnamed module, i.e. any other code): the public
 * API publishes, and nothing reaches io.vtctx.internal: not by reference, reflection, a private
 * lookup, nor a class-path class declared in that package. With the argument {@code otel},
 * OpenTelemetry is on the module path too and {@link ModulePathOtelProbe} checks the integration.
 * Prints one PASS line, or each failure, and exits non-zero on failure.
 *
 * <p>Args: the vtctx agent's path (for the carrier probe), then optionally {@code otel}.
 */
public final class ModulePathProbe {
  static final String TRACE = "4bf92f3577b34da6a3ce929d0e0e4736";
  static final String SPAN = "00f067aa0ba902b7";

  private ModulePathProbe() {}

  public static void main(String[] args) throws Exception {
    List<String> failures = new ArrayList<>();
    Module shim = ThreadContext.class.getModule();
    check(failures, shim.isNamed() && "io.vtctx".equals(shim.getName()), "module: " + shim);
    check(
        failures,
        shim.isExported("io.vtctx") && shim.isExported("io.vtctx.otel"),
        "the API packages are not exported");
    check(
        failures,
        !shim.isExported("io.vtctx.internal") && !shim.isOpen("io.vtctx.internal"),
        "io.vtctx.internal is exported or open");

    Class<?> natives = Class.forName("io.vtctx.internal.AgentNatives"); // loading is allowed
    check(failures, natives.getModule() == shim, "AgentNatives outside the module");
    try {
      natives.getDeclaredMethod("currentRecordBuffer").setAccessible(true);
      failures.add("reflection reached AgentNatives.currentRecordBuffer");
    } catch (InaccessibleObjectException expected) {
      // not opened to us
    }
    try {
      MethodHandles.privateLookupIn(natives, MethodHandles.lookup());
      failures.add("a private lookup in AgentNatives was granted");
    } catch (IllegalAccessException expected) {
      // not opened to us
    }
    try {
      ThreadRecord.current(); // public, but its package is not exported
      failures.add("a direct call reached io.vtctx.internal.ThreadRecord");
    } catch (IllegalAccessError expected) {
      // not exported to us
    }
    try {
      // On the class path (test classes), but its package belongs to the module io.vtctx.
      Class.forName("io.vtctx.internal.TestNatives");
      failures.add("a class-path class joined the package io.vtctx.internal");
    } catch (ClassNotFoundException expected) {
      // the package is the module's
    }

    // A copy of the shim's AgentNatives, from the shim's own jar, in a class loader of this code:
    // the agent binds its natives to the module's class only.
    checkCopyGetsNoNatives(failures, shim);

    // The public API publishes: the carrier shows exactly what was set, at the thread's record.
    check(failures, CarrierProbe.init(args[0]), "vtctx agent not loaded");
    ThreadContext.setHex(TRACE, SPAN, 1);
    checkPublished(failures, TRACE + SPAN + "0101", "ThreadContext.setHex");

    if (args.length > 1 && args[1].equals("otel")) ModulePathOtelProbe.check(failures);

    if (failures.isEmpty()) {
      System.out.println("ModulePathProbe: PASS" + (args.length > 1 ? " " + args[1] : ""));
      return;
    }
    failures.forEach(f -> System.out.println("ModulePathProbe: FAIL " + f));
    System.exit(1);
  }

  static void checkCopyGetsNoNatives(List<String> failures, Module shim) throws Exception {
    java.net.URI jar =
        ModuleLayer.boot().configuration().findModule(shim.getName()).orElseThrow().reference()
            .location().orElseThrow();
    byte[] bytes;
    try (java.util.jar.JarFile file = new java.util.jar.JarFile(new java.io.File(jar))) {
      bytes =
          file.getInputStream(file.getEntry("io/vtctx/internal/AgentNatives.class")).readAllBytes();
    }
    Class<?> copy = new CopyLoader(bytes).copy();
    java.lang.reflect.Method isActive = copy.getDeclaredMethod("isActive");
    isActive.setAccessible(true); // its own loader's unnamed module: open
    try {
      Object active = isActive.invoke(null);
      failures.add("a copy of AgentNatives in another class loader got the natives: " + active);
    } catch (java.lang.reflect.InvocationTargetException e) {
      check(
          failures,
          e.getCause() instanceof UnsatisfiedLinkError,
          "the copy's isActive threw " + e.getCause());
    }
  }

  /** Defines a copy of the shim's AgentNatives from its class file bytes. */
  static final class CopyLoader extends ClassLoader {
    private final byte[] bytes;

    CopyLoader(byte[] bytes) {
      super("vtctx-copy", ClassLoader.getPlatformClassLoader());
      this.bytes = bytes;
    }

    Class<?> copy() {
      return defineClass("io.vtctx.internal.AgentNatives", bytes, 0, bytes.length);
    }
  }

  static void check(List<String> failures, boolean ok, String failure) {
    if (!ok) failures.add(failure);
  }

  // The first 26 bytes the carrier publishes (ids, valid, flags), at this thread's record.
  static void checkPublished(List<String> failures, String want, String what) {
    byte[] header = new byte[26];
    long address = CarrierProbe.snapshot(header);
    String got = HexFormat.of().formatHex(header);
    if (address != ThreadContext.recordAddress() || address == 0 || !got.equals(want)) {
      failures.add(what + ": published " + got + " at 0x" + Long.toHexString(address));
    }
  }
}
