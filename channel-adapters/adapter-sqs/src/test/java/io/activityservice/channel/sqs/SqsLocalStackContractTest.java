package io.activityservice.channel.sqs;

import io.activityservice.channel.ChannelAdapter;
import io.activityservice.channel.ChannelAdapterContract;
import io.activityservice.channel.ChannelUri;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** The shared adapter contract against a real LocalStack (see {@link LocalStackSqs}). */
class SqsLocalStackContractTest extends ChannelAdapterContract {

  private static SqsChannelAdapter adapter;

  @BeforeAll
  static void start() {
    adapter = SqsChannelAdapter.connect(LocalStackSqs.properties());
  }

  @AfterAll
  static void stop() {
    if (adapter != null) {
      adapter.close();
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
