package io.activityservice.channel.jms.embedded;

import static org.assertj.core.api.Assertions.assertThat;

import jakarta.jms.Connection;
import jakarta.jms.MessageConsumer;
import jakarta.jms.Session;
import jakarta.jms.TextMessage;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.activemq.ActiveMQConnectionFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The standalone broker as a real process: it announces its URL, carries messages, and stops on
 * SIGTERM.
 */
class StandaloneActiveMqBrokerTest {

  @TempDir Path dir;

  @Test
  void runsAsItsOwnProcessAndStopsOnSigterm() throws Exception {
    Process p =
        new ProcessBuilder(
                List.of(
                    Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                    "-Xmx256m",
                    "-cp",
                    System.getProperty("java.class.path"),
                    StandaloneActiveMqBroker.class.getName(),
                    "0",
                    dir.resolve("broker").toString()))
            .redirectError(dir.resolve("broker.log").toFile())
            .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")))
            .start();
    try {
      BufferedReader out =
          new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
      String ready = null;
      for (String line; (line = out.readLine()) != null; ) {
        if (line.startsWith("READY ")) {
          ready = line.substring("READY ".length()).trim();
          break;
        }
      }
      assertThat(ready)
          .as("READY line (stdin closed must not stop it)")
          .startsWith("tcp://127.0.0.1:");

      Connection c = new ActiveMQConnectionFactory(ready).createConnection();
      try {
        c.start();
        Session s = c.createSession(false, Session.AUTO_ACKNOWLEDGE);
        MessageConsumer consumer = s.createConsumer(s.createQueue("standalone.test"));
        s.createProducer(s.createQueue("standalone.test")).send(s.createTextMessage("hello"));
        assertThat(((TextMessage) consumer.receive(10_000)).getText()).isEqualTo("hello");
      } finally {
        c.close();
      }

      p.destroy(); // SIGTERM: the shutdown hook stops the broker
      assertThat(p.waitFor(30, TimeUnit.SECONDS)).as("exited after SIGTERM").isTrue();
      assertThat(dir.resolve("broker").resolve("kahadb")).as("persistent store").isDirectory();
    } finally {
      p.destroyForcibly();
    }
  }

  @Test
  void withExitWithStdinItStopsWhenItsParentClosesStdin() throws Exception {
    Process p =
        new ProcessBuilder(
                List.of(
                    Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                    "-Xmx256m",
                    "-cp",
                    System.getProperty("java.class.path"),
                    StandaloneActiveMqBroker.class.getName(),
                    "0",
                    dir.resolve("broker").toString(),
                    StandaloneActiveMqBroker.EXIT_WITH_STDIN))
            .redirectError(dir.resolve("broker.log").toFile())
            .start();
    try {
      BufferedReader out =
          new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
      String line;
      do {
        line = out.readLine();
      } while (line != null && !line.startsWith("READY "));
      assertThat(line).as("READY line").isNotNull();
      assertThat(p.isAlive()).isTrue();
      p.getOutputStream().close();
      assertThat(p.waitFor(30, TimeUnit.SECONDS)).as("exited once stdin closed").isTrue();
    } finally {
      p.destroyForcibly();
    }
  }

  @Test
  void badArgumentsExitWithUsage() throws Exception {
    Process p =
        new ProcessBuilder(
                List.of(
                    Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                    "-cp",
                    System.getProperty("java.class.path"),
                    StandaloneActiveMqBroker.class.getName(),
                    "not-a-port"))
            .redirectErrorStream(true)
            .start();
    String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
    assertThat(p.exitValue()).isEqualTo(2);
    assertThat(output).contains("usage: StandaloneActiveMqBroker <port> <data dir>");
  }
}
