package io.vtctx.correctness;

import java.io.FileOutputStream;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Set;

/**
 * Emits markers: write(2) calls on one /dev/null file descriptor whose byte count says which
 * marker it is, so the ground truth travels in the syscall itself and needs no other channel.
 *
 * <p>{@code count = BASE + STRIDE * markerId + kind}. kind 0 is the graded marker; kinds 1 and 2
 * announce that the marker's context was just made current (1) or taken away (2); only the naive
 * tid-keyed baseline uses the announcements (see naive.py).
 *
 * <p>Each marker is exactly one libc write(2) of {@code count} bytes from native memory, called
 * through the FFM API: no copy, no splitting (/dev/null takes every byte at once), and nothing
 * between the Java call and the syscall that could unmount the thread. Java's own I/O would do
 * more: FileChannel.write takes a monitor (contended, it unmounts a virtual thread under JEP 491)
 * and may start a compensating carrier, and FileOutputStream.write copies heap arrays through
 * malloc. None of that would be wrong for vtctx, but the naive baseline needs each announcement
 * on the OS thread of the publish it follows. The reconciliation still checks "exactly one event
 * per marker".
 */
final class MarkerSink implements AutoCloseable {
  static final int BASE = 100_000;
  static final int STRIDE = 4;
  static final int MARKER = 0;
  static final int SET = 1;
  static final int CLEAR = 2;

  private static final MethodHandle WRITE =
      Linker.nativeLinker()
          .downcallHandle(
              Linker.nativeLinker().defaultLookup().find("write").orElseThrow(),
              FunctionDescriptor.of(
                  ValueLayout.JAVA_LONG,
                  ValueLayout.JAVA_INT,
                  ValueLayout.ADDRESS,
                  ValueLayout.JAVA_LONG));

  private final FileOutputStream stream; // keeps the fd open
  private final MemorySegment bytes;
  private final int fd;

  private MarkerSink(FileOutputStream stream, MemorySegment bytes, int fd) {
    this.stream = stream;
    this.bytes = bytes;
    this.fd = fd;
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
    return new MarkerSink(
        stream, Arena.global().allocate(capacity), after.iterator().next());
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
      n = (long) WRITE.invokeExact(fd, bytes, count);
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
