package io.activityservice.perf.fault;

import io.activityservice.channel.support.DaemonThreads;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A TCP forwarder on a fixed loopback port between the service replicas and one server (PostgreSQL,
 * LocalStack), so the fault suite can make that server unreachable and reachable again without
 * touching the server itself (LocalStack is shared; PostgreSQL keeps running with its state).
 * {@link #cut()} resets every open connection (RST, as a dead peer or a firewall reject would) and
 * closes the listening socket, so new connections are refused at once rather than hanging; {@link
 * #restore()} listens again on the same port. (adapter-jms's test {@code TcpProxy} only kills for
 * good; this one comes back, which a fault schedule needs.)
 */
public final class FaultProxy implements AutoCloseable {

  private final int port;
  private final String targetHost;
  private final int targetPort;
  private final List<Socket> sockets = new CopyOnWriteArrayList<>();
  private volatile ServerSocket server;

  /** Listens on a free loopback port and forwards to {@code targetHost:targetPort}. */
  public FaultProxy(String targetHost, int targetPort) throws IOException {
    this.targetHost = targetHost;
    this.targetPort = targetPort;
    ServerSocket s = new ServerSocket(0, 200, InetAddress.getLoopbackAddress());
    this.port = s.getLocalPort();
    listen(s);
  }

  /** The port clients connect to. */
  public int port() {
    return port;
  }

  /** Whether connections are being forwarded. */
  public boolean up() {
    return server != null;
  }

  /** Resets every connection and refuses new ones until {@link #restore()}. */
  public synchronized void cut() {
    ServerSocket s = server;
    server = null;
    closeQuietly(s);
    for (Socket socket : sockets) {
      try {
        socket.setSoLinger(true, 0);
      } catch (IOException e) {
        // closing anyway
      }
      closeQuietly(socket);
    }
    sockets.clear();
  }

  /** Listens again on the same port. */
  public synchronized void restore() throws IOException {
    if (server != null) {
      return;
    }
    ServerSocket s = new ServerSocket();
    s.setReuseAddress(true);
    s.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 200);
    listen(s);
  }

  private void listen(ServerSocket s) {
    server = s;
    Thread acceptor = DaemonThreads.thread("fault-proxy-accept-" + port, () -> accept(s));
    acceptor.start();
  }

  private void accept(ServerSocket s) {
    while (server == s) {
      Socket client;
      try {
        client = s.accept();
      } catch (IOException e) {
        return; // cut
      }
      try {
        Socket target = new Socket(targetHost, targetPort);
        client.setTcpNoDelay(true);
        target.setTcpNoDelay(true);
        sockets.add(client);
        sockets.add(target);
        pipe(client, target);
        pipe(target, client);
      } catch (IOException e) {
        closeQuietly(
            client); // the server itself is down (PostgreSQL restarting): the client sees a closed
        // socket
      }
    }
  }

  private void pipe(Socket from, Socket to) {
    Thread t =
        DaemonThreads.thread(
            "fault-proxy-pipe-" + port,
            () -> {
              byte[] buffer = new byte[32 * 1024];
              try (InputStream in = from.getInputStream();
                  OutputStream out = to.getOutputStream()) {
                int n;
                while ((n = in.read(buffer)) >= 0) {
                  out.write(buffer, 0, n);
                  out.flush();
                }
              } catch (IOException e) {
                // one side closed or was reset: end both
              }
              closeQuietly(from);
              closeQuietly(to);
              sockets.remove(from);
              sockets.remove(to);
            });
    t.start();
  }

  private static void closeQuietly(AutoCloseable c) {
    if (c == null) {
      return;
    }
    try {
      c.close();
    } catch (Exception e) {
      // already closed
    }
  }

  @Override
  public void close() {
    cut();
  }
}
