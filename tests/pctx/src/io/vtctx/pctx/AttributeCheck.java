package io.vtctx.pctx;

import io.vtctx.internal.TestNatives;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.LockSupport;

/**
 * The attribute natives in a real JVM, checked against the calling thread's record bytes (seen
 * through TestNatives.currentRecordBuffer). Usage: AttributeCheck (agent options must include
 * attribute_keys=method|route). Prints "AttributeCheck: PASS" and exits 0, or lists failures.
 */
public final class AttributeCheck {
  static final List<String> failures = new ArrayList<>();

  static void check(boolean ok, String what) {
    if (!ok) failures.add(Thread.currentThread() + ": " + what);
  }

  record Entry(int key, byte[] value) {
    String text() {
      return new String(value, StandardCharsets.UTF_8);
    }
  }

  /** Parses attrs-data like a reader; every entry must be complete and inside the record. */
  static List<Entry> entries(ByteBuffer record) {
    ByteBuffer r = record.duplicate().order(ByteOrder.nativeOrder());
    int size = Short.toUnsignedInt(r.getShort(26));
    check(size <= r.capacity() - 28, "attrs_data_size " + size + " beyond the record");
    List<Entry> out = new ArrayList<>();
    int pos = 28;
    int end = 28 + Math.min(size, r.capacity() - 28);
    while (pos < end) {
      if (pos + 2 > end) {
        check(false, "truncated entry header");
        break;
      }
      int key = Byte.toUnsignedInt(r.get(pos));
      int len = Byte.toUnsignedInt(r.get(pos + 1));
      if (pos + 2 + len > end) {
        check(false, "truncated entry value");
        break;
      }
      byte[] v = new byte[len];
      r.get(pos + 2, v);
      out.add(new Entry(key, v));
      pos += 2 + len;
    }
    return out;
  }

  static boolean validUtf8(byte[] bytes) {
    try {
      StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
          .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(bytes));
      return true;
    } catch (CharacterCodingException e) {
      return false;
    }
  }

  static void clear(int keys) {
    for (int k = 0; k < keys; k++) TestNatives.setAttribute(k, null);
  }

  /** Runs on the calling thread (virtual or platform). */
  static void onThisThread(int method, int route, int user) {
    ByteBuffer record = TestNatives.currentRecordBuffer();
    check(record != null, "no record buffer");
    if (record == null) return;
    int capacity = record.capacity() - 28;
    byte validBefore = record.get(24);

    check(TestNatives.setAttribute(method, "GET") == 3, "set GET");
    check(TestNatives.setAttribute(route, "/api/test") == 9, "set /api/test");
    check(TestNatives.setAttribute(method, "POST") == 4, "replace with POST");
    List<Entry> e = entries(record);
    check(e.size() == 2 && e.get(0).key() == route && e.get(0).text().equals("/api/test")
        && e.get(1).key() == method && e.get(1).text().equals("POST"),
        "one entry per key, the new value last: " + e);
    check(TestNatives.setAttribute(method, null) == 0, "remove");
    e = entries(record);
    check(e.size() == 1 && e.get(0).key() == route, "after remove: " + e);

    // Truncation at character boundaries, for 1- to 4-byte UTF-8 characters.
    for (String ch : new String[] {"a", "\u00e9", "\u20ac", "\ud83d\ude00"}) {
      clear(3);
      int bytesPerChar = ch.getBytes(StandardCharsets.UTF_8).length;
      String value = ch.repeat(300);
      int room = Math.min(255, capacity - 2);
      int expected = room / bytesPerChar * bytesPerChar;
      int stored = TestNatives.setAttribute(user, value);
      check(stored == expected, ch + ": stored " + stored + ", expected " + expected);
      e = entries(record);
      check(e.size() == 1 && validUtf8(e.get(0).value())
          && e.get(0).text().equals(ch.repeat(expected / bytesPerChar)),
          ch + ": entry is the longest whole-character prefix");
    }
    // Unpaired surrogates become U+FFFD, never CESU-8.
    clear(3);
    check(TestNatives.setAttribute(user, "a\ud800b") == 5, "unpaired surrogate");
    e = entries(record);
    check(e.size() == 1 && e.get(0).text().equals("a\ufffdb"), "U+FFFD: " + e);
    // A surrogate pair cut by the 255-unit window is left out whole.
    clear(3);
    String cut = "a".repeat(254) + "\ud83d\ude00" + "tail";
    int expectCut = Math.min(254, Math.min(255, capacity - 2));
    check(TestNatives.setAttribute(user, cut) == expectCut, "pair at the window edge");
    // Fill the record: entries stay inside it.
    clear(3);
    for (int k = 0; k < 3; k++) TestNatives.setAttribute(k, "x".repeat(200));
    e = entries(record);
    int used = 0;
    for (Entry x : e) used += 2 + x.value().length;
    check(used <= capacity, "full record overflows: " + used + " > " + capacity);
    check(record.get(24) == validBefore, "attribute writes changed the record's validity");

    // Attributes belong to the thread and survive unmount/remount.
    clear(3);
    TestNatives.setAttribute(route, "/kept");
    Thread.yield();
    LockSupport.parkNanos(1_000_000);
    ByteBuffer again = TestNatives.currentRecordBuffer();
    e = entries(again);
    check(e.size() == 1 && e.get(0).text().equals("/kept"), "after remount: " + e);

    check(TestNatives.setAttribute(200, "x") == -1, "unregistered index accepted");
    check(TestNatives.setAttribute(-1, "x") == -1, "negative index accepted");
  }

  public static void main(String[] args) throws Exception {
    check(TestNatives.isActive(), "agent not active");
    int method = TestNatives.registerAttributeKey("method");
    int route = TestNatives.registerAttributeKey("route");
    check(method == 0 && route == 1, "pre-registered keys (attribute_keys option) are 0 and 1");
    int user = TestNatives.registerAttributeKey("user");
    check(user == 2, "next key gets index 2, got " + user);
    check(TestNatives.registerAttributeKey("user") == user, "registration is idempotent");
    check(TestNatives.registerAttributeKey(null) == -1, "null key accepted");
    check(TestNatives.registerAttributeKey("") == -1, "empty key accepted");
    check(TestNatives.registerAttributeKey("k".repeat(256)) == -1, "256-byte key accepted");
    check(
        TestNatives.registerAttributeKey("\u00e9".repeat(128)) == -1, "256 UTF-8 bytes accepted");
    int longest = TestNatives.registerAttributeKey("k".repeat(255));
    check(longest == 3, "255-byte key refused");
    int unicode = TestNatives.registerAttributeKey("\u043a\u043b\u044e\u0447\ud83d\ude00");
    check(unicode == 4, "non-ASCII key refused");

    Thread v = Thread.ofVirtual().start(() -> onThisThread(method, route, user));
    v.join();
    Thread p = Thread.ofPlatform().start(() -> onThisThread(method, route, user));
    p.join();

    // 255 keys at most; the 256th fails and existing keys still resolve.
    int last = unicode;
    for (int i = 0; ; i++) {
      int index = TestNatives.registerAttributeKey("fill." + i);
      if (index < 0) break;
      check(index == last + 1, "indexes are dense: " + index + " after " + last);
      last = index;
    }
    check(last == 254, "last index " + last + ", want 254");
    check(TestNatives.registerAttributeKey("route") == route, "existing key after the limit");

    String verdict = failures.isEmpty() ? "PASS" : "FAIL";
    for (String f : failures) System.out.println("FAIL: " + f);
    System.out.println("AttributeCheck: " + verdict + " (record " + TestNatives.recordSize()
        + " bytes)");
    System.exit(failures.isEmpty() ? 0 : 1);
  }
}
