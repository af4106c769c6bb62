package io.activityservice.channel.http;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import org.apache.hc.core5.http.ContentType;
import org.apache.hc.core5.http.nio.entity.AbstractBinAsyncEntityConsumer;

/** Reads a response body of at most {@code max} bytes; a longer one fails the request. */
final class BoundedBodyConsumer extends AbstractBinAsyncEntityConsumer<byte[]> {

  private final int max;
  private final ByteArrayOutputStream out = new ByteArrayOutputStream();

  BoundedBodyConsumer(int max) {
    this.max = max;
  }

  @Override
  protected void streamStart(ContentType contentType) {}

  @Override
  protected int capacityIncrement() {
    return Math.max(1024, max);
  }

  @Override
  protected void data(ByteBuffer src, boolean endOfStream) throws IOException {
    int n = src.remaining();
    if (out.size() + n > max) {
      throw new IOException("response body above " + max + " bytes");
    }
    byte[] chunk = new byte[n];
    src.get(chunk);
    out.write(chunk);
  }

  @Override
  protected byte[] generateContent() {
    return out.toByteArray();
  }

  @Override
  public void releaseResources() {}
}
