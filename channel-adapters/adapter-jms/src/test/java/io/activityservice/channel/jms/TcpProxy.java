package io.activityservice.channel.jms;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A TCP forwarder between a client and a broker, so a test can cut the client off the way a crash
 * does: {@link #kill()} closes every socket at once (no goodbye to the broker) and refuses new
 * ones.
 */
final class TcpProxy implements AutoCloseable {

  private final ServerSocket server;
  private final int targetPort;
  private final List<Socket> sockets = new CopyOnWriteArrayList<>();
  private volatile boolean killed;

  TcpProxy(int targetPort) throws IOException {
    this.targetPort = targetPort;
    this.server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    Thread acceptor = new Thread(this::accept, "tcp-proxy-accept");
    acceptor.setDaemon(true);
    acceptor.start();
  }

  /** A broker URL through this proxy. */
  String url() {
    return "tcp://127.0.0.1:" + server.getLocalPort();
  }

  private void accept() {
    while (!killed) {
      try {
        Socket client = server.accept();
        Socket target = new Socket(InetAddress.getLoopbackAddress(), targetPort);
        sockets.add(client);
        sockets.add(target);
        pipe(client, target);
        pipe(target, client);
      } catch (IOException e) {
        return; // killed
      }
    }
  }

  private void pipe(Socket from, Socket to) {
    Thread t =
        new Thread(
            () -> {
              byte[] buffer = new byte[16 * 1024];
              try (InputStream in = from.getInputStream();
                  OutputStream out = to.getOutputStream()) {
                int n;
                while ((n = in.read(buffer)) >= 0) {
                  out.write(buffer, 0, n);
                  out.flush();
                }
              } catch (IOException e) {
                // one side closed: end both
              }
              closeQuietly(from);
              closeQuietly(to);
            },
            "tcp-proxy-pipe");
    t.setDaemon(true);
    t.start();
  }

  /** Cuts every connection at once and refuses new ones. */
  void kill() {
    killed = true;
    closeQuietly(server);
    for (Socket s : sockets) {
      try {
        s.setSoLinger(true, 0); // reset, like a dead process
      } catch (IOException e) {
        // closing anyway
      }
      closeQuietly(s);
    }
  }

  private static void closeQuietly(AutoCloseable c) {
    try {
      c.close();
    } catch (Exception e) {
      // already closed
    }
  }

  @Override
  public void close() {
    kill();
  }
}
