package io.vtctx.pctx;

import io.vtctx.internal.TestNatives;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A JVM whose process context pctxCheck.py reads from outside. Prints "READY <pid>", then obeys
 * one command per stdin line and answers with one stdout line:
 *
 * <ul>
 *   <li>{@code register k1 k2 ...} - registers the keys; answers {@code REGISTERED k1=i1 k2=i2}
 *   <li>{@code concurrent <threads> <keys> <prefix>} - that many threads (half virtual, half
 *       platform) each register keys {@code <prefix>.0 .. <prefix>.<keys-1>} in their own random
 *       order, all released at once; answers {@code DONE <prefix>.0=i0 ...}, or {@code MISMATCH
 *       ...} if two threads got different indexes for one key
 *   <li>{@code active} - answers {@code ACTIVE true|false} (TestNatives.isActive, false if the
 *       agent is not loaded)
 *   <li>{@code exit} - exits 0
 * </ul>
 */
public final class PctxTarget {
  public static void main(String[] args) throws Exception {
    BufferedReader in =
        new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    System.out.println("READY " + ProcessHandle.current().pid());
    System.out.flush();
    for (String line; (line = in.readLine()) != null; ) {
      String[] words = line.trim().split(" ");
      switch (words[0]) {
        case "register" -> {
          StringBuilder answer = new StringBuilder("REGISTERED");
          for (int i = 1; i < words.length; i++) {
            answer.append(' ').append(words[i]).append('=')
                .append(TestNatives.registerAttributeKey(words[i]));
          }
          reply(answer.toString());
        }
        case "concurrent" -> reply(concurrent(Integer.parseInt(words[1]),
            Integer.parseInt(words[2]), words[3]));
        case "active" -> {
          boolean active;
          try {
            active = TestNatives.isActive();
          } catch (UnsatisfiedLinkError e) {
            active = false;
          }
          reply("ACTIVE " + active);
        }
        case "exit" -> {
          reply("BYE");
          System.exit(0);
        }
        default -> reply("UNKNOWN " + line);
      }
    }
  }

  static void reply(String line) {
    System.out.println(line);
    System.out.flush();
  }

  static String concurrent(int threads, int keys, String prefix) throws InterruptedException {
    int[][] indexes = new int[threads][keys];
    CountDownLatch start = new CountDownLatch(1);
    AtomicReference<Throwable> failure = new AtomicReference<>();
    List<Thread> workers = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      final int id = t;
      Runnable work = () -> {
        try {
          List<Integer> order = new ArrayList<>();
          for (int k = 0; k < keys; k++) order.add(k);
          Collections.shuffle(order, new Random(id));
          start.await();
          for (int k : order) indexes[id][k] = TestNatives.registerAttributeKey(prefix + "." + k);
        } catch (Throwable e) {
          failure.compareAndSet(null, e);
        }
      };
      workers.add(t % 2 == 0 ? Thread.ofVirtual().start(work) : Thread.ofPlatform().start(work));
    }
    start.countDown();
    for (Thread w : workers) w.join();
    if (failure.get() != null) return "MISMATCH exception " + failure.get();
    StringBuilder answer = new StringBuilder("DONE");
    for (int k = 0; k < keys; k++) {
      for (int t = 1; t < threads; t++) {
        if (indexes[t][k] != indexes[0][k]) {
          return "MISMATCH " + prefix + "." + k + " got " + indexes[0][k] + " and "
              + indexes[t][k];
        }
      }
      answer.append(' ').append(prefix).append('.').append(k).append('=').append(indexes[0][k]);
    }
    return answer.toString();
  }
}
