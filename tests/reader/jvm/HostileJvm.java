import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;

/**
 * A JVM that attacks the reader profiling it (reader.hostile_input, hostileInputTest.py). Prints
 * {"event":"ready","pid":P} once armed, then waits for "quit" (or end of input) on stdin.
 *
 * <ul>
 *   <li>{@code perfmap LINES}: its /tmp/perf-PID.map is LINES nested ranges, each covering the
 *       whole address space, made read-only (HotSpot cannot replace it when the reader asks for a
 *       dump) and written again at once whenever the reader has removed it; a thread burns CPU.
 *   <li>{@code mappings NATIVES FILE COUNT}: a thread enters NATIVES' spinInMappings, which maps
 *       FILE COUNT times and spins in the first mapping on a stack whose return addresses lead
 *       through all the others (hostileNatives.c).
 * </ul>
 */
public final class HostileJvm {
  static native void spinInMappings(String file, int count);

  static volatile long sink;

  static String nestedRanges(int lines) {
    StringBuilder text = new StringBuilder(lines * 40);
    for (int i = 0; i < lines; i++) {
      text.append(Long.toHexString(0x1000L + i)).append(' ')
          .append(Long.toHexString(0x7fffffffffffL - i)).append(" nested_").append(i).append('\n');
    }
    return text.toString();
  }

  static void keepPerfMap(Path map, byte[] text) {
    try {
      while (true) {
        if (!Files.exists(map)) {
          Path tmp = Files.createTempFile(map.getParent(), "perf-", ".tmp");
          Files.write(tmp, text);
          Files.setPosixFilePermissions(tmp, PosixFilePermissions.fromString("r--r--r--"));
          Files.move(tmp, map);
        }
        Thread.sleep(5);
      }
    } catch (Exception e) {
      System.err.println("perf map keeper: " + e);
    }
  }

  public static void main(String[] args) throws Exception {
    long pid = ProcessHandle.current().pid();
    if (args[0].equals("perfmap")) {
      Path map = Path.of("/tmp/perf-" + pid + ".map");
      byte[] text = nestedRanges(Integer.parseInt(args[1])).getBytes(StandardCharsets.US_ASCII);
      Thread keeper = new Thread(() -> keepPerfMap(map, text), "perf-map-keeper");
      keeper.setDaemon(true);
      keeper.start();
      while (!Files.exists(map)) Thread.onSpinWait();
      Thread burner = new Thread(() -> {
        long x = 0;
        while (true) sink = x++;
      }, "burner");
      burner.setDaemon(true);
      burner.start();
    } else if (args[0].equals("mappings")) {
      System.load(args[1]);
      String file = args[2];
      int count = Integer.parseInt(args[3]);
      Thread spinner = new Thread(() -> spinInMappings(file, count), "mappings");
      spinner.setDaemon(true);
      spinner.start();
    } else {
      throw new IllegalArgumentException(args[0]);
    }
    System.out.println("{\"event\":\"ready\",\"pid\":" + pid + "}");
    System.out.flush();
    BufferedReader stdin = new BufferedReader(new InputStreamReader(System.in));
    String line;
    while ((line = stdin.readLine()) != null && !line.equals("quit")) {
    }
  }
}
