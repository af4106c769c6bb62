package io.activityservice.channel.sqs;

import io.activityservice.channel.ChannelAdapter;
import io.activityservice.channel.ChannelAdapterContract;
import io.activityservice.channel.ChannelUri;
import java.nio.charset.StandardCharsets;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;

/** The shared adapter contract on one SQS server; subclasses connect {@link #adapter} to it. */
abstract class AbstractSqsContractTest extends ChannelAdapterContract {

  static SqsChannelAdapter adapter;

  @AfterAll
  static void closeAdapter() {
    if (adapter != null) {
      adapter.close();
      adapter = null;
    }
  }

  @Override
  protected ChannelAdapter adapter() {
    return adapter;
  }

  @Override
  protected ChannelUri freshChannel() {
    return ChannelUri.parse("sqs:contract-" + UUID.randomUUID());
  }

  /** A FIFO queue: partition keys are message groups there (standard queues ignore them). */
  @Override
  protected ChannelUri freshPartitionedChannel() {
    return ChannelUri.parse("sqs:contract-" + UUID.randomUUID() + ".fifo");
  }

  /**
   * SQS gives a message group to one receiver at a time, in order, but not always to the same one.
   */
  @Override
  protected boolean partitionKeyPinsReceiver() {
    return false;
  }

  /** A plain SendMessage with the body as text and no message attributes. */
  @Override
  protected String sendPlain(ChannelUri uri, byte[] body) {
    String url = adapter.queueUrl(uri).join();
    return adapter
        .client()
        .sendMessage(r -> r.queueUrl(url).messageBody(new String(body, StandardCharsets.UTF_8)))
        .join()
        .messageId();
  }

  @Override
  protected ChannelUri invalidChannel() {
    return ChannelUri.parse("sqs:not a valid queue name!");
  }
}
