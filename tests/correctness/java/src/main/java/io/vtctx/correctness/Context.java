package io.vtctx.correctness;

/** A trace context as a reader sees it in the record: trace-id (two halves), span-id, flags. */
record Context(long traceHigh, long traceLow, long span, int flags) {}
