import io.vtctx.internal.TestNatives;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;

/**
 * The stdin/stdout protocol of the reader's JVM test programs, which the Python drivers speak
 * (vtctxtest.JvmTarget): one {"event":"ready","pid":P,...} line, then "go" on stdin; one
 * {"event":"done",...} line, then "quit" on stdin.
 */
final class TargetProtocol {
  private final BufferedReader stdin = new BufferedReader(new InputStreamReader(System.in));

  /** Prints the ready line (the pid, then `fields`: ",\"name\":value..."), waits for "go". */
  void ready(String fields) throws IOException {
    System.out.println("{\"event\":\"ready\",\"pid\":" + ProcessHandle.current().pid() + fields
        + "}");
    System.out.flush();
    if (!"go".equals(stdin.readLine())) System.exit(2);
  }

  /** Prints the done line (`fields` as for ready), waits for "quit". */
  void done(String fields) throws IOException {
    System.out.println("{\"event\":\"done\"" + fields + "}");
    System.out.flush();
    stdin.readLine(); // "quit"
  }

  /** Exits 3, naming the program, unless the vtctx agent is active. */
  static void requireAgent(String program) {
    if (!TestNatives.isActive()) {
      System.err.println(program + ": the vtctx agent is not active");
      System.exit(3);
    }
  }
}
