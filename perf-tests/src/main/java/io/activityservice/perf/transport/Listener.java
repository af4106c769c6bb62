package io.activityservice.perf.transport;

/** A running consumer on one channel; closing it stops receiving. Never throws on close. */
public interface Listener extends AutoCloseable {

  @Override
  void close();
}
