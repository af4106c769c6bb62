package io.activityservice.app.abuse;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A raw HTTP/1.1 request whose body is streamed (chunked, or with a declared length) by its own
 * thread while the answer is read, so a server that answers before reading the whole body is seen
 * doing so, and how much of the body it took before answering is measured.
 *
 * @param status the answer's status (0 if none came)
 * @param json its body, if JSON
 * @param body its body as text
 * @param bytesSent body bytes the server accepted from the socket before the answer was read
 * @param millis from the first byte sent to the answer
 */
record ChunkedRequest(int status, JsonNode json, String body, long bytesSent, long millis) {

  private static final ObjectMapper MAPPER = new ObjectMapper();

  /**
   * Sends {@code method path} with {@code prefix} followed by {@code total} bytes of filler ('a');
   * chunked when {@code chunked}, else with a declared {@code Content-Length}.
   */
  static ChunkedRequest send(
      int port,
      String method,
      String path,
      String key,
      String contentType,
      String prefix,
      long total,
      boolean chunked)
      throws Exception {
    long start = System.nanoTime();
    AtomicLong sent = new AtomicLong();
    try (Socket socket = new Socket("127.0.0.1", port)) {
      socket.setSoTimeout(30_000);
      OutputStream out = socket.getOutputStream();
      byte[] head = prefix.getBytes(StandardCharsets.UTF_8);
      StringBuilder h = new StringBuilder(method + " " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\n");
      if (key != null) {
        h.append("Authorization: Bearer ").append(key).append("\r\n");
      }
      h.append("Content-Type: ").append(contentType).append("\r\n");
      h.append(
          chunked
              ? "Transfer-Encoding: chunked\r\n"
              : "Content-Length: " + (head.length + total) + "\r\n");
      h.append("Connection: close\r\n\r\n");
      out.write(h.toString().getBytes(StandardCharsets.US_ASCII));
      out.flush();
      Thread writer =
          new Thread(
              () -> {
                try {
                  write(out, head, chunked, sent);
                  byte[] filler = new byte[64 * 1024];
                  Arrays.fill(filler, (byte) 'a');
                  long left = total;
                  while (left > 0) {
                    int n = (int) Math.min(filler.length, left);
                    write(
                        out, n == filler.length ? filler : Arrays.copyOf(filler, n), chunked, sent);
                    left -= n;
                  }
                  if (chunked) {
                    out.write("0\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
                  }
                  out.flush();
                } catch (IOException e) {
                  // The server answered and closed: exactly what a bounded server does.
                }
              },
              "chunked-writer");
      writer.setDaemon(true);
      writer.start();
      String answer = readAnswer(socket.getInputStream());
      long millis = (System.nanoTime() - start) / 1_000_000;
      long bytes = sent.get();
      socket.close();
      writer.join(5_000);
      int status = answer.startsWith("HTTP/1.1 ") ? Integer.parseInt(answer.substring(9, 12)) : 0;
      int bodyStart = answer.indexOf('{');
      int bodyEnd = answer.lastIndexOf('}');
      String body =
          bodyStart >= 0 && bodyEnd > bodyStart ? answer.substring(bodyStart, bodyEnd + 1) : "";
      JsonNode json = null;
      try {
        json = body.isEmpty() ? null : MAPPER.readTree(body);
      } catch (IOException e) {
        json = null;
      }
      return new ChunkedRequest(status, json, body, bytes, millis);
    }
  }

  private static void write(OutputStream out, byte[] data, boolean chunked, AtomicLong sent)
      throws IOException {
    if (chunked) {
      out.write((Integer.toHexString(data.length) + "\r\n").getBytes(StandardCharsets.US_ASCII));
      out.write(data);
      out.write("\r\n".getBytes(StandardCharsets.US_ASCII));
    } else {
      out.write(data);
    }
    sent.addAndGet(data.length);
  }

  /** The answer's head and body, up to the end of a small body or the connection. */
  private static String readAnswer(InputStream in) throws IOException {
    ByteArrayOutputStream buffer = new ByteArrayOutputStream();
    byte[] b = new byte[8192];
    try {
      int n;
      while ((n = in.read(b)) > 0) {
        buffer.write(b, 0, n);
        String text = buffer.toString(StandardCharsets.UTF_8);
        int headEnd = text.indexOf("\r\n\r\n");
        if (headEnd > 0
            && text.lastIndexOf('}') > headEnd
            && (text.endsWith("}") || text.endsWith("0\r\n\r\n"))) {
          break;
        }
      }
    } catch (SocketTimeoutException | java.net.SocketException e) {
      // return what arrived
    }
    return buffer.toString(StandardCharsets.UTF_8);
  }
}
