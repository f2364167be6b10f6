package io.vtctx.demo;

/** A stored note: what {@code GET /notes/{id}} returns as JSON. */
record Note(long id, String title, String body) {}
