package io.activityservice.perf.profile;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * strace lines classified by peer: OpenWire commands to the broker, SQS requests by action,
 * responses, futexes.
 */
class SyscallsTest {

  private static final Map<Integer, String> ROLES =
      Map.of(61616, "activemq", 4566, "sqs", 9092, "kafka", 8080, "http");

  @Test
  void classifiesWritesByPeerAndCommand() {
    List<String> lines =
        List.of(
            "4711  write(45<TCP:[127.0.0.1:40000->127.0.0.1:61616]>, \""
                + hex(new byte[] {0, 0, 1, 0, 28, 1})
                + "\"..., 300) = 300",
            "4711  write(45<TCP:[127.0.0.1:40000->127.0.0.1:61616]>, \""
                + hex(new byte[] {0, 0, 0, 40, 22, 1})
                + "\", 44) = 44",
            "4712  write(45<TCP:[127.0.0.1:40000->127.0.0.1:61616]>, \""
                + hex(new byte[] {0, 0, 0, 40, 7, 1})
                + "\", 44 <unfinished ...>",
            "4712  <... write resumed>) = 44",
            "4713  write(51<TCP:[127.0.0.1:40002->127.0.0.1:4566]>, \""
                + hex(
                    ("POST / HTTP/1.1\r\nHost: x\r\n"
                            + "X-Amz-Target: AmazonSQS.SendMessageBatch\r\n")
                        .getBytes(StandardCharsets.US_ASCII))
                + "\"..., 2000) = 2000",
            "4713  writev(51<TCP:[127.0.0.1:40002->127.0.0.1:4566]>, [{iov_base=\""
                + hex("{\"Entries\"".getBytes(StandardCharsets.US_ASCII))
                + "\"...}], 1) = 900",
            "4714  write(60<TCP:[127.0.0.1:8080->127.0.0.1:55555]>, \""
                + hex("HTTP/1.1 202".getBytes(StandardCharsets.US_ASCII))
                + "\"..., 400) = 400",
            "4715  futex(0x7f00, FUTEX_WAKE_PRIVATE, 1) = 1",
            "4718  write(46<TCPv6:[[::ffff:127.0.0.1]:40010->[::ffff:127.0.0.1]:61616]>, \""
                + hex(new byte[] {0, 0, 1, 0, 24, 1})
                + "\"..., 300) = 300",
            "4716  write(7<pipe:[1234]>, \"\\x01\", 1) = 1",
            "4717  +++ exited with 0 +++");
    Map<String, Long> c = Syscalls.count(lines, ROLES);
    assertEquals(
        Map.of(
            "broker: message sends",
            2L,
            "broker: acks",
            1L,
            "broker: transaction commands (begin/commit/rollback)",
            1L,
            "sqs requests: SendMessageBatch",
            1L,
            "sqs: request body writes",
            1L,
            "http responses written",
            1L,
            "futex calls",
            1L,
            "other writes (files, pipes, eventfds)",
            1L),
        c);
    assertEquals(Map.of("futex calls", 0.5), Syscalls.perEvent(Map.of("futex calls", 1L), 2));
  }

  private static String hex(byte[] b) {
    StringBuilder s = new StringBuilder();
    for (byte x : b) {
      s.append(String.format("\\x%02x", x & 0xff));
    }
    return s.toString();
  }
}
