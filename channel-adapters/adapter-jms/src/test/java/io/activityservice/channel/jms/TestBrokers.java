package io.activityservice.channel.jms;

import io.activityservice.channel.jms.embedded.EmbeddedActiveMqBroker;
import java.io.File;
import java.io.IOException;
import java.nio.file.Files;

/** Real ActiveMQ brokers for tests: TCP connector on 127.0.0.1 and a free port. */
final class TestBrokers {

  private TestBrokers() {}

  /** A broker without a store (fast), on a free port. */
  static EmbeddedActiveMqBroker inMemory() {
    return EmbeddedActiveMqBroker.start("127.0.0.1", 0, tempDir(), false);
  }

  static File tempDir() {
    try {
      File dir = Files.createTempDirectory("jms-adapter-test").toFile();
      dir.deleteOnExit();
      return dir;
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  static String tcpUrl(EmbeddedActiveMqBroker broker) {
    return "tcp://127.0.0.1:" + broker.port();
  }
}
