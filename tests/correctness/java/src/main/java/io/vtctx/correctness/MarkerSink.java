package io.vtctx.correctness;

import java.io.FileOutputStream;
import java.io.IOException;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.reflect.Array;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Optional;
import java.util.Set;

/**
 * Emits markers: write(2) calls on one /dev/null file descriptor whose byte count says which
 * marker it is, so the ground truth travels in the syscall itself and needs no other channel.
 *
 * <p>{@code count = BASE + STRIDE * markerId + kind}. kind 0 is the graded marker; kinds 1 and 2
 * announce that the marker's context was just made current (1) or taken away (2); only the naive
 * tid-keyed baseline uses the announcements (see naive.py).
 *
 * <p>On Java 22+ each marker is exactly one libc write(2) of {@code count} bytes from native
 * memory, called through the FFM API: no copy, no splitting (/dev/null takes every byte at once),
 * and nothing between the Java call and the syscall that could unmount the thread. Java's own I/O
 * would do more: FileChannel.write takes a monitor (contended, it unmounts a virtual thread under
 * JEP 491) and may start a compensating carrier, and FileOutputStream.write copies heap arrays
 * through malloc. None of that would be wrong for vtctx, but the naive baseline needs each
 * announcement on the OS thread of the publish it follows. The reconciliation still checks
 * "exactly one event per marker".
 *
 * <p>Java 21 has the FFM API only as a preview: there a marker is one FileOutputStream.write of
 * {@code count} bytes (a malloc'ed copy, then one write(2) on the same thread: the virtual thread
 * stays mounted through it). The program is Java 21 bytecode and reaches FFM reflectively, once.
 */
final class MarkerSink implements AutoCloseable {
  static final int BASE = 100_000;
  static final int STRIDE = 4;
  static final int MARKER = 0;
  static final int SET = 1;
  static final int CLEAR = 2;

  private final FileOutputStream stream; // keeps the fd open
  private final int fd;
  private final MethodHandle write; // (int fd, long count) -> long, or null: through `stream`
  private final byte[] bytes; // for `stream`

  private MarkerSink(FileOutputStream stream, int fd, MethodHandle write, byte[] bytes) {
    this.stream = stream;
    this.fd = fd;
    this.write = write;
    this.bytes = bytes;
  }

  /**
   * Opens /dev/null for {@code markers} markers and finds its fd number: the one /dev/null fd that
   * appears in /proc/self/fd across the open. Call it before starting any thread of the harness.
   */
  static MarkerSink open(int markers) throws IOException {
    Set<Integer> before = devNullFds();
    FileOutputStream stream = new FileOutputStream("/dev/null");
    Set<Integer> after = devNullFds();
    after.removeAll(before);
    if (after.size() != 1) {
      stream.close();
      throw new IOException("cannot tell the marker fd: new /dev/null fds " + after);
    }
    long capacity = BASE + (long) STRIDE * markers;
    if (Runtime.version().feature() >= 22) {
      return new MarkerSink(stream, after.iterator().next(), ffmWrite(capacity), null);
    }
    return new MarkerSink(stream, after.iterator().next(), null, new byte[(int) capacity]);
  }

  /** libc write(int, void*, size_t) over `capacity` bytes of native memory, as (int, long)long. */
  private static MethodHandle ffmWrite(long capacity) throws IOException {
    try {
      Class<?> linkerClass = Class.forName("java.lang.foreign.Linker");
      Class<?> layout = Class.forName("java.lang.foreign.MemoryLayout");
      Class<?> valueLayout = Class.forName("java.lang.foreign.ValueLayout");
      Class<?> descriptor = Class.forName("java.lang.foreign.FunctionDescriptor");
      Class<?> segment = Class.forName("java.lang.foreign.MemorySegment");
      Class<?> option = Class.forName("java.lang.foreign.Linker$Option");
      Class<?> arena = Class.forName("java.lang.foreign.Arena");
      Object linker = linkerClass.getMethod("nativeLinker").invoke(null);
      Object lookup = linkerClass.getMethod("defaultLookup").invoke(linker);
      Optional<?> symbol =
          (Optional<?>)
              Class.forName("java.lang.foreign.SymbolLookup")
                  .getMethod("find", String.class)
                  .invoke(lookup, "write");
      Object args = Array.newInstance(layout, 3);
      Array.set(args, 0, valueLayout.getField("JAVA_INT").get(null));
      Array.set(args, 1, valueLayout.getField("ADDRESS").get(null));
      Array.set(args, 2, valueLayout.getField("JAVA_LONG").get(null));
      Object signature =
          descriptor
              .getMethod("of", layout, args.getClass())
              .invoke(null, valueLayout.getField("JAVA_LONG").get(null), args);
      MethodHandle write =
          (MethodHandle)
              linkerClass
                  .getMethod("downcallHandle", segment, descriptor, option.arrayType())
                  .invoke(linker, symbol.orElseThrow(), signature, Array.newInstance(option, 0));
      Object global = arena.getMethod("global").invoke(null);
      Object bytes = arena.getMethod("allocate", long.class).invoke(global, capacity);
      return MethodHandles.insertArguments(write, 1, bytes);
    } catch (ReflectiveOperationException | RuntimeException e) {
      throw new IOException("cannot set up write(2) through the FFM API", e);
    }
  }

  int fd() {
    return fd;
  }

  void marker(int markerId) {
    write(markerId, MARKER);
  }

  void announce(int markerId, int kind) {
    write(markerId, kind);
  }

  private void write(int markerId, int kind) {
    long count = BASE + (long) STRIDE * markerId + kind;
    long n;
    try {
      if (write != null) {
        n = (long) write.invokeExact(fd, count);
      } else {
        stream.write(bytes, 0, (int) count); // one write(2): /dev/null takes it all
        n = count;
      }
    } catch (Throwable t) {
      throw new IllegalStateException("marker write failed", t);
    }
    if (n != count) throw new IllegalStateException("marker write returned " + n + " of " + count);
  }

  private static Set<Integer> devNullFds() throws IOException {
    Set<Integer> fds = new HashSet<>();
    try (DirectoryStream<Path> dir = Files.newDirectoryStream(Path.of("/proc/self/fd"))) {
      for (Path p : dir) {
        try {
          if (Files.readSymbolicLink(p).toString().equals("/dev/null")) {
            fds.add(Integer.parseInt(p.getFileName().toString()));
          }
        } catch (IOException e) {
          // The directory stream's own fd disappears while we list: not ours to worry about.
        }
      }
    }
    return fds;
  }

  @Override
  public void close() throws IOException {
    stream.close();
  }
}
