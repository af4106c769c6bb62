package io.activityservice.channel.sqs;

import io.activityservice.channel.ChannelAdapter;
import io.activityservice.channel.ChannelAdapterContract;
import io.activityservice.channel.ChannelUri;
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

  @Override
  protected ChannelUri invalidChannel() {
    return ChannelUri.parse("sqs:not a valid queue name!");
  }
}
