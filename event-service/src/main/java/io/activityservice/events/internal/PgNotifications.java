package io.activityservice.events.internal;

import io.activityservice.channel.support.DaemonThreads;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Listens on one PostgreSQL {@code NOTIFY} channel on a connection of its own and runs a callback
 * for each notification: a thread blocked on the socket, no CPU while nothing happens. If the
 * connection breaks it reconnects (every few seconds) and runs the callback once, since
 * notifications sent meanwhile are lost. Only for PostgreSQL (H2 has no {@code LISTEN}).
 */
public final class PgNotifications implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(PgNotifications.class);
  private static final long RECONNECT_MILLIS = 5_000;

  private final DataSource dataSource;
  private final String channel;
  private final Runnable onNotify;
  private final Thread thread;
  private volatile boolean closed;
  private volatile Connection connection;

  /**
   * @param channel the channel name (a plain SQL identifier)
   * @param onNotify run on the listener's thread for each notification; must not block
   */
  public PgNotifications(
      DataSource dataSource, String channel, Runnable onNotify, String threadName) {
    if (!channel.matches("[a-z_][a-z0-9_]*")) {
      throw new IllegalArgumentException("not a plain channel name: " + channel);
    }
    this.dataSource = dataSource;
    this.channel = channel;
    this.onNotify = onNotify;
    this.thread = DaemonThreads.thread(threadName, this::run);
  }

  /** Starts listening. */
  public PgNotifications start() {
    thread.start();
    return this;
  }

  /**
   * Sends a notification on {@code channel} within the caller's transaction (delivered at its
   * commit).
   */
  public static String notifySql(String channel) {
    return "select pg_notify('" + channel + "', '')";
  }

  private void run() {
    boolean first = true;
    while (!closed) {
      try (Connection c = dataSource.getConnection()) {
        c.setAutoCommit(true);
        try (Statement st = c.createStatement()) {
          st.execute("listen " + channel);
        }
        connection = c;
        if (!first) {
          onNotify.run(); // notifications sent while not listening are lost: look once
        }
        first = false;
        org.postgresql.PGConnection pg = c.unwrap(org.postgresql.PGConnection.class);
        while (!closed) {
          // Blocks until a notification arrives (0: no timeout); close() sends one to end it.
          org.postgresql.PGNotification[] received = pg.getNotifications(0);
          if (received != null && received.length > 0) {
            onNotify.run();
          }
        }
      } catch (SQLException | RuntimeException e) {
        if (!closed) {
          log.warn(
              "listening for {} failed, reconnecting in {} ms: {}",
              channel,
              RECONNECT_MILLIS,
              e.toString());
          first = false;
          sleep();
        }
      } finally {
        connection = null;
      }
    }
  }

  private void sleep() {
    try {
      TimeUnit.MILLISECONDS.sleep(RECONNECT_MILLIS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      closed = true;
    }
  }

  /**
   * Stops listening: the thread is blocked on its connection, so it is woken by a notification on
   * its own channel (the connection is pooled: closing it from here would hand it back to the pool
   * while the thread still reads it). Other listeners see one extra notification.
   */
  @Override
  public void close() {
    closed = true;
    if (connection != null) {
      try (Connection c = dataSource.getConnection();
          Statement st = c.createStatement()) {
        st.execute(notifySql(channel));
      } catch (SQLException | RuntimeException e) {
        log.debug("could not wake the {} listener: {}", channel, e.toString());
      }
    } else {
      thread.interrupt(); // not connected: waiting to reconnect
    }
    try {
      thread.join(2_000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
