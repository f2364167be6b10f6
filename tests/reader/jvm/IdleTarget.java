import java.io.BufferedReader;
import java.io.InputStreamReader;

/**
 * A JVM to attach the agent to later: no virtual threads, nothing running. Prints
 * {"event":"ready","pid":P}, then waits for "quit" (or end of input) on stdin.
 */
public final class IdleTarget {
  public static void main(String[] args) throws Exception {
    System.out.println("{\"event\":\"ready\",\"pid\":" + ProcessHandle.current().pid() + "}");
    System.out.flush();
    BufferedReader stdin = new BufferedReader(new InputStreamReader(System.in));
    String line;
    while ((line = stdin.readLine()) != null && !line.equals("quit")) {
    }
  }
}
