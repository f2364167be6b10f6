package io.vtctx.abuse;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.vtctx.ThreadContext;
import io.vtctx.internal.TestNatives;
import io.vtctx.testing.Published;
import java.io.InputStream;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The agent's natives, abused the way any class on the class path could: called through reflection
 * and method handles, and bound to a class of another class loader that declares
 * io.vtctx.internal.AgentNatives with the natives the agent once exported. Each gets an exception
 * or a refusal, at most a view of the calling thread's own record (what the public API writes
 * anyway); never a window over other memory, never a crash, and no String is ever mutated. Nothing
 * here writes through what it gets, except through a String.value getter, to show the mutation it
 * allows.
 */
@Tag("agent")
class NativesAbuseTest {
  private static final String NATIVES = "io.vtctx.internal.AgentNatives";
  private static final Class<?>[] NONE = {};
  private static final Class<?>[] ADDRESS = {long.class};
  private static final CountDownLatch RELEASE = new CountDownLatch(1);
  private static long foreignRecord; // a live record of another thread

  @BeforeAll
  static void setUp() throws Exception {
    assertTrue(Published.init(), "agent not loaded");
    CompletableFuture<Long> record = new CompletableFuture<>();
    Thread.ofPlatform()
        .daemon()
        .start(
            () -> {
              record.complete(TestNatives.currentRecord());
              try {
                RELEASE.await(); // keeps its record live until the tests are done
              } catch (InterruptedException e) {
                // ends
              }
            });
    foreignRecord = record.get();
    assertNotEquals(0, foreignRecord);
  }

  @AfterAll
  static void tearDown() {
    RELEASE.countDown();
  }

  /** No native takes an address or hands out an untyped object (e.g. a JDK-internal handle). */
  @Test
  void noNativeTakesAnAddressOrReturnsAnObject() throws Exception {
    for (Method m : Class.forName(NATIVES).getDeclaredMethods()) {
      if (!Modifier.isNative(m.getModifiers())) continue;
      assertFalse(Modifier.isPublic(m.getModifiers()), m + " is public");
      for (Class<?> p : m.getParameterTypes()) assertNotEquals(long.class, p, m.toString());
      assertNotEquals(Object.class, m.getReturnType(), m.toString());
    }
    assertFalse(Modifier.isPublic(Class.forName(NATIVES).getModifiers()), NATIVES + " is public");
  }

  @Test
  void reflectionGetsNoPoolWindow() throws Exception {
    assertNoWindow("recordPoolWindow", reflectiveCall("recordPoolWindow", NONE));
  }

  @Test
  void reflectionGetsNoWindowOverAnotherRecord() throws Exception {
    assertNoWindow("recordWindow", reflectiveCall("recordWindow", ADDRESS, foreignRecord));
  }

  @Test
  void reflectionMutatesNoString() throws Throwable {
    Object getter = reflectiveCall("stringValueGetter", NONE);
    assertNoStringMutated(getter);
    assertNoWindow("stringValueGetter", getter);
  }

  /** The calling frame is the JDK's reflection, not the shim: refused. */
  @Test
  void reflectionGetsNoRecordView() throws Exception {
    assertNull(reflectiveCall("currentRecordBuffer", NONE));
  }

  /** The calling frame is the JDK's method handle code, not the shim: refused. */
  @Test
  void methodHandleGetsNoRecordView() throws Throwable {
    Class<?> natives = Class.forName(NATIVES);
    MethodHandle handle =
        MethodHandles.privateLookupIn(natives, MethodHandles.lookup())
            .findStatic(natives, "currentRecordBuffer", MethodType.methodType(ByteBuffer.class));
    assertNull(handle.invoke());
  }

  /*
   * A class named io.vtctx.internal.AgentNatives in another class loader (callAll calls its
   * natives from the class itself): the natives the agent no longer has do not link; today's give
   * at most the caller's own record, never another's.
   */

  @Test
  void anotherLoaderGetsNoPoolWindow() throws Exception {
    assertNoWindow("recordPoolWindow", imposterCalls().get("recordPoolWindow"));
  }

  @Test
  void anotherLoaderGetsNoWindowOverAnotherRecord() throws Exception {
    assertNoWindow("recordWindow", imposterCalls().get("recordWindow"));
  }

  @Test
  void anotherLoaderMutatesNoString() throws Throwable {
    Object getter = imposterCalls().get("stringValueGetter");
    assertNoStringMutated(getter);
    assertNoWindow("stringValueGetter", getter);
  }

  /** The agent binds its natives to the system class loader's AgentNatives only. */
  @Test
  void anotherLoaderGetsNoNativesAtAll() throws Exception {
    ThreadContext.set(0x4bf92f3577b34da6L, 0xa3ce929d0e0e4736L, 0x00f067aa0ba902b7L, 1);
    Map<String, Object> calls = imposterCalls();
    assertInstanceOf(UnsatisfiedLinkError.class, calls.get("currentRecordBuffer"));
    assertInstanceOf(UnsatisfiedLinkError.class, calls.get("currentRecord"));
  }

  /** The calling frame is the JDK's reflection: no address either. */
  @Test
  void reflectionGetsNoRecordAddress() throws Exception {
    assertEquals(0L, reflectiveCall("currentRecord", NONE));
  }

  /**
   * A view kept past its thread's end keeps that record: no later thread gets it while the view is
   * reachable, so writing through the view can never forge another thread's context.
   */
  @Test
  void aKeptViewKeepsItsRecordFromLaterThreads() throws Exception {
    CompletableFuture<Object[]> kept = new CompletableFuture<>();
    Thread.ofVirtual()
        .start(
            () -> kept.complete(
                new Object[] {TestNatives.currentRecordBuffer(), TestNatives.currentRecord()}))
        .join();
    ByteBuffer view = (ByteBuffer) kept.get()[0];
    long address = (long) kept.get()[1];
    assertNotEquals(0L, address);
    // Later threads take records from the same caches, newest first: without the rule, one of
    // them gets the dead thread's record.
    for (int round = 0; round < 20; round++) {
      Thread[] threads = new Thread[200];
      long[] addresses = new long[threads.length];
      for (int i = 0; i < threads.length; i++) {
        int at = i;
        threads[i] = Thread.ofVirtual().start(() -> addresses[at] = TestNatives.currentRecord());
      }
      for (Thread t : threads) t.join();
      for (long a : addresses) {
        assertNotEquals(address, a, "a later thread got a kept view's record");
      }
    }
    view.putLong(16, 0x1234L); // writes into the dead thread's record only
    assertEquals(0x1234L, view.getLong(16));
  }

  // What each native of the imposter returned or threw, called from the imposter itself.
  @SuppressWarnings("unchecked")
  private static Map<String, Object> imposterCalls() throws Exception {
    Class<?> imposter = new IsolatedLoader().defineRenamed();
    assertEquals(NATIVES, imposter.getName());
    return (Map<String, Object>)
        imposter.getMethod("callAll", long.class).invoke(null, foreignRecord);
  }

  // The result of a call through reflection: what it returned, or what it threw.
  private static Object reflectiveCall(String name, Class<?>[] types, Object... args)
      throws ClassNotFoundException, IllegalAccessException {
    Method m;
    try {
      m = Class.forName(NATIVES).getDeclaredMethod(name, types);
    } catch (NoSuchMethodException e) {
      return e;
    }
    m.setAccessible(true); // allowed on the class path (the unnamed module opens everything)
    try {
      return m.invoke(null, args);
    } catch (InvocationTargetException e) {
      return e.getCause();
    }
  }

  // An exception, a refusal (null) or a linkage failure; never a buffer or a handle.
  private static void assertNoWindow(String name, Object result) {
    if (result == null
        || result instanceof NoSuchMethodException
        || result instanceof UnsatisfiedLinkError) {
      return;
    }
    String what =
        result instanceof ByteBuffer b ? "a buffer of " + b.capacity() + " bytes" : "" + result;
    fail(name + " handed out " + what);
  }

  // If a String.value getter was handed out, writes through it to show what it allows.
  private static void assertNoStringMutated(Object getter) throws Throwable {
    String victim = new String("admin".toCharArray()); // its own array: nothing else is touched
    if (getter instanceof MethodHandle h) {
      byte[] value = (byte[]) h.invoke(victim);
      value[0] = 'A';
    }
    assertTrue("admin".equals(victim), "a String was mutated: " + victim);
  }

  /** Defines the imposter, renamed into io.vtctx.internal, in a loader that sees no shim class. */
  private static final class IsolatedLoader extends ClassLoader {
    IsolatedLoader() {
      super("vtctx-abuse", ClassLoader.getPlatformClassLoader());
    }

    Class<?> defineRenamed() throws Exception {
      byte[] bytes;
      try (InputStream in =
          NativesAbuseTest.class.getResourceAsStream("/io/vtctx/imposter/AgentNatives.class")) {
        bytes = in.readAllBytes();
      }
      // Same length, so the class file's structure is unchanged.
      byte[] from = "io/vtctx/imposter/".getBytes(StandardCharsets.US_ASCII);
      byte[] to = "io/vtctx/internal/".getBytes(StandardCharsets.US_ASCII);
      int replaced = 0;
      for (int i = 0; i + from.length <= bytes.length; i++) {
        if (Arrays.equals(bytes, i, i + from.length, from, 0, from.length)) {
          System.arraycopy(to, 0, bytes, i, to.length);
          replaced++;
        }
      }
      assertTrue(replaced > 0, "imposter class not renamed");
      return defineClass(NATIVES, bytes, 0, bytes.length);
    }
  }
}
