package io.vtctx.correctness;

/** Which transitions a sender makes before and after each marker. */
interface TransitionPlan {
  Transition before(int sender, int seq);

  Transition after(int sender, int seq);

  /**
   * The paper's shape: the first marker on the thread's first mount (no park before it, the case
   * a two-probe design gets wrong), every later one after a park; a yield after each marker.
   */
  static TransitionPlan paper() {
    return new TransitionPlan() {
      @Override
      public Transition before(int sender, int seq) {
        return seq == 0 ? Transition.NONE : Transition.PARK;
      }

      @Override
      public Transition after(int sender, int seq) {
        return Transition.YIELD;
      }
    };
  }

  /** Every kind of transition, chosen by a hash of (seed, sender, seq): reproducible per run. */
  static TransitionPlan mix(long seed) {
    Transition[] kinds = Transition.values();
    return new TransitionPlan() {
      @Override
      public Transition before(int sender, int seq) {
        return kinds[pick(seed, sender, seq, 0, kinds.length)];
      }

      @Override
      public Transition after(int sender, int seq) {
        return kinds[pick(seed, sender, seq, 1, kinds.length)];
      }
    };
  }

  private static int pick(long seed, int sender, int seq, int slot, int n) {
    long x = seed ^ (sender * 0x9e3779b97f4a7c15L) ^ (seq * 0xc2b2ae3d27d4eb4fL) ^ slot;
    x ^= x >>> 33;
    x *= 0xff51afd7ed558ccdL;
    x ^= x >>> 33;
    return (int) Long.remainderUnsigned(x, n);
  }
}
