import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * How the marker programs take a virtual thread off its carrier between two markers, so that it
 * usually continues on another one: marker j yields, parks, hands off or sleeps (j % 4).
 */
final class Unmount {
  private Unmount() {}

  static void between(int j, int marker, SynchronousQueue<Integer> handoff)
      throws InterruptedException {
    switch (j % 4) {
      case 0 -> Thread.yield();
      case 1 -> LockSupport.parkNanos(20_000);
      case 2 -> {
        // Pair up with another virtual thread: whoever waits parks (unmounts).
        if (handoff.offer(marker)) break;
        handoff.poll(50, TimeUnit.MICROSECONDS);
      }
      default -> Thread.sleep(0, 1);
    }
  }
}
