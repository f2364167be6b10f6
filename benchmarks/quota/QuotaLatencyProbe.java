import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.util.concurrent.locks.LockSupport;

/**
 * A service's latency as a CPU quota sees it: a platform thread asks to wake every 2 ms and
 * measures how late it wakes (throttled periods show as delays of tens of ms). Prints
 * {"event":"ready","pid":P}, then on "go <seconds>" measures and prints one line: {"wakeups":N,
 * "late_10ms":N, "p99_ms":X, "max_ms":X}, then waits for the next command ("quit" ends).
 */
public final class QuotaLatencyProbe {
  public static void main(String[] args) throws Exception {
    System.out.println("{\"event\":\"ready\",\"pid\":" + ProcessHandle.current().pid() + "}");
    System.out.flush();
    BufferedReader in = new BufferedReader(new InputStreamReader(System.in));
    for (String line; (line = in.readLine()) != null && !line.equals("quit"); ) {
      if (!line.startsWith("go ")) continue;
      long end = System.nanoTime() + Long.parseLong(line.substring(3)) * 1_000_000_000L;
      long[] delays = new long[200_000];
      int n = 0;
      while (System.nanoTime() < end && n < delays.length) {
        long before = System.nanoTime();
        LockSupport.parkNanos(2_000_000);
        delays[n++] = System.nanoTime() - before - 2_000_000;
      }
      java.util.Arrays.sort(delays, 0, n);
      int late = 0;
      for (int i = 0; i < n; i++) if (delays[i] > 10_000_000) late++;
      System.out.printf(
          "{\"wakeups\":%d,\"late_10ms\":%d,\"p99_ms\":%.2f,\"max_ms\":%.2f}%n",
          n, late, delays[(int) (n * 0.99)] / 1e6, delays[n - 1] / 1e6);
      System.out.flush();
    }
  }
}
