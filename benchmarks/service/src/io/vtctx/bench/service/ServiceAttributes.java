package io.vtctx.bench.service;

import io.opentelemetry.api.common.AttributeKey;

/** The OpenTelemetry semantic-convention attribute keys the service's spans carry. */
final class ServiceAttributes {
  static final AttributeKey<String> NAME = AttributeKey.stringKey("service.name");
  static final AttributeKey<String> HTTP_METHOD = AttributeKey.stringKey("http.request.method");
  static final AttributeKey<String> HTTP_ROUTE = AttributeKey.stringKey("http.route");
  static final AttributeKey<Long> HTTP_STATUS = AttributeKey.longKey("http.response.status_code");
  static final AttributeKey<String> URL_FULL = AttributeKey.stringKey("url.full");
  static final AttributeKey<String> DB_SYSTEM = AttributeKey.stringKey("db.system.name");
  static final AttributeKey<String> DB_QUERY = AttributeKey.stringKey("db.query.text");

  private ServiceAttributes() {}
}
