package io.vtctx.bench.jmh;

import java.util.concurrent.locks.LockSupport;

/**
 * Two virtual threads pass a turn back and forth: each hand-off unparks the other thread and parks
 * this one, so on one carrier every hand-off is one unmount and one mount.
 */
final class HandOff {
  private final int handOffs;
  private volatile int turn; // 0: ping's turn, 1: pong's turn

  HandOff(int handOffs) {
    this.handOffs = handOffs;
  }

  void run() throws InterruptedException {
    Thread[] threads = new Thread[2];
    threads[0] = Thread.ofVirtual().unstarted(() -> play(0, threads[1]));
    threads[1] = Thread.ofVirtual().unstarted(() -> play(1, threads[0]));
    threads[1].start();
    threads[0].start();
    threads[0].join();
    threads[1].join();
  }

  private void play(int me, Thread other) {
    for (int i = me; i < handOffs; i += 2) {
      while (turn != me) LockSupport.park(); // spurious wake-ups only loop
      turn = 1 - me;
      LockSupport.unpark(other);
    }
  }
}
