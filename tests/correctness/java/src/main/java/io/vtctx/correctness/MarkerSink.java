package io.vtctx.correctness;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
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
 * <p>Why a FileChannel with a direct buffer: FileChannel.write of a direct buffer is exactly one
 * write(2) of {@code remaining()} bytes (no copy into a temporary, no splitting) and /dev/null
 * accepts every byte at once; the reconciliation checks "exactly one event per marker" anyway.
 */
final class MarkerSink implements AutoCloseable {
  static final int BASE = 100_000;
  static final int STRIDE = 4;
  static final int MARKER = 0;
  static final int SET = 1;
  static final int CLEAR = 2;

  private final FileChannel channel;
  private final ByteBuffer bytes;
  private final int fd;

  private MarkerSink(FileChannel channel, ByteBuffer bytes, int fd) {
    this.channel = channel;
    this.bytes = bytes;
    this.fd = fd;
  }

  /**
   * Opens /dev/null for {@code markers} markers and finds its fd number: the one /dev/null fd that
   * appears in /proc/self/fd across the open. Call it before starting any thread of the harness.
   */
  static MarkerSink open(int markers) throws IOException {
    Set<Integer> before = devNullFds();
    FileChannel channel = FileChannel.open(Path.of("/dev/null"), StandardOpenOption.WRITE);
    Set<Integer> after = devNullFds();
    after.removeAll(before);
    if (after.size() != 1) {
      throw new IOException("cannot tell the marker fd: new /dev/null fds " + after);
    }
    long capacity = BASE + (long) STRIDE * markers;
    if (capacity > Integer.MAX_VALUE) throw new IOException("too many markers: " + markers);
    return new MarkerSink(
        channel, ByteBuffer.allocateDirect((int) capacity), after.iterator().next());
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
    int count = BASE + STRIDE * markerId + kind;
    ByteBuffer b = bytes.duplicate().position(0).limit(count);
    try {
      int n = channel.write(b);
      if (n != count) throw new IllegalStateException("short marker write: " + n + " of " + count);
    } catch (IOException e) {
      throw new IllegalStateException("marker write failed", e);
    }
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
    channel.close();
  }
}
