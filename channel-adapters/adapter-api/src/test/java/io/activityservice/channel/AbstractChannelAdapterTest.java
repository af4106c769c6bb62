package io.activityservice.channel;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.cloudevents.CloudEvent;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

class AbstractChannelAdapterTest {

  /** Records what is closed, in order. */
  private static final class Recording extends AbstractChannelAdapter {
    final List<String> closed = new CopyOnWriteArrayList<>();
    final List<OutboundEvent> sent = new CopyOnWriteArrayList<>();

    Recording() {
      super("test");
    }

    @Override
    public Set<String> schemes() {
      return Set.of("test");
    }

    @Override
    public void validate(ChannelUri uri) {}

    @Override
    public OutboundChannel openOutbound(ChannelUri uri) {
      return register(
          onClose ->
              new OutboundChannel() {
                @Override
                public ChannelUri uri() {
                  return uri;
                }

                @Override
                public CompletableFuture<Void> send(OutboundEvent event) {
                  sent.add(event);
                  return CompletableFuture.completedFuture(null);
                }

                @Override
                public void close() {
                  closed.add("out:" + uri);
                  onClose.run();
                }
              });
    }

    @Override
    public InboundChannel openInbound(
        ChannelUri uri, InboundSettings settings, InboundHandler handler) {
      return register(
          onClose ->
              new InboundChannel() {
                @Override
                public ChannelUri uri() {
                  return uri;
                }

                @Override
                public void close() {
                  closed.add("in:" + uri);
                  onClose.run();
                }
              });
    }

    @Override
    protected void doClose() {
      closed.add("adapter");
    }
  }

  @Test
  void closeClosesOpenChannelsInboundFirstThenTheAdapterOnce() {
    Recording adapter = new Recording();
    ChannelUri a = ChannelUri.parse("test:a");
    ChannelUri b = ChannelUri.parse("test:b");
    adapter.openOutbound(a);
    adapter.openInbound(b, InboundSettings.strict(), (e, ack) -> ack.ack());
    adapter.openOutbound(b).close(); // closed on its own: not closed again

    adapter.close();
    adapter.close();

    assertThat(adapter.closed).containsExactly("out:test:b", "in:test:b", "out:test:a", "adapter");
    assertThat(adapter.isClosed()).isTrue();
  }

  @Test
  void aClosedAdapterOpensNothing() {
    Recording adapter = new Recording();
    adapter.close();
    assertThatThrownBy(() -> adapter.openOutbound(ChannelUri.parse("test:a")))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("the test channel adapter is closed");
  }

  @Test
  void sendOfACloudEventReachesTheChannelAsAnOutboundEvent() {
    Recording adapter = new Recording();
    CloudEvent event = ChannelAdapterContract.sampleEvent(1);
    assertThat(adapter.openOutbound(ChannelUri.parse("test:a")).send(event)).isCompleted();
    assertThat(adapter.sent).singleElement().satisfies(e -> assertThat(e.event()).isSameAs(event));
  }
}
