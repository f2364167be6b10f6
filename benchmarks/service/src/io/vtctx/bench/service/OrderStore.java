package io.vtctx.bench.service;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.context.Scope;
import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/**
 * Orders in PostgreSQL, read through a HikariCP pool with the PostgreSQL JDBC driver: one query
 * (one round trip over a TCP socket) per lookup, in a CLIENT child span of the request's span.
 */
final class OrderStore implements AutoCloseable {
  static final String QUERY =
      "SELECT o.customer, o.status, o.created, l.sku, l.quantity, l.unit_price"
          + " FROM orders o JOIN order_lines l ON l.order_id = o.id"
          + " WHERE o.id = ? ORDER BY l.line";

  record Line(String sku, int quantity, BigDecimal unitPrice) {}

  record Order(int id, String customer, String status, String created, List<Line> lines) {}

  private final HikariDataSource pool;
  private final Tracer tracer;

  OrderStore(String jdbcUrl, String user, int connections, Tracer tracer) {
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(jdbcUrl);
    config.setUsername(user);
    config.setMaximumPoolSize(connections);
    config.setMinimumIdle(connections);
    config.setPoolName("orders");
    this.pool = new HikariDataSource(config);
    this.tracer = tracer;
  }

  /** The order with its lines, or null if there is none. */
  Order find(int id) throws SQLException {
    Span span =
        tracer
            .spanBuilder("SELECT orders")
            .setSpanKind(SpanKind.CLIENT)
            .setAttribute(ServiceAttributes.DB_SYSTEM, "postgresql")
            .setAttribute(ServiceAttributes.DB_QUERY, QUERY)
            .startSpan();
    try (Scope scope = span.makeCurrent();
        Connection c = pool.getConnection();
        PreparedStatement query = c.prepareStatement(QUERY)) {
      query.setInt(1, id);
      try (ResultSet rows = query.executeQuery()) {
        Order order = null;
        while (rows.next()) {
          if (order == null) {
            order =
                new Order(
                    id,
                    rows.getString(1),
                    rows.getString(2),
                    rows.getString(3),
                    new ArrayList<>());
          }
          order.lines().add(new Line(rows.getString(4), rows.getInt(5), rows.getBigDecimal(6)));
        }
        return order;
      }
    } catch (SQLException e) {
      span.recordException(e);
      span.setStatus(StatusCode.ERROR);
      throw e;
    } finally {
      span.end();
    }
  }

  @Override
  public void close() {
    pool.close();
  }
}
