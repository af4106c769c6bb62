package io.activityservice.perf.profile;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Bucketing a small collapsed-stack profile into the capacity model's stages. */
class StagesTest {

  private static final String LOOP =
      "java/lang/Thread.run;io/activityservice/channel/jms/JmsInboundChannel$ReceiveLoop.run";

  /**
   * Weights sum to 100: receive 30, route 20, deliver 15, settle 10, broker 10, jit-gc 10, other 5.
   */
  private static final List<String> PROFILE =
      List.of(
          // parsing in ingest
          LOOP
              + ";io/activityservice/events/ingest/RoutingInboundHandler.onEvents"
              + ";com/fasterxml/jackson/core/json/UTF8StreamJsonParser.nextToken 30",
          // matching inside the router
          LOOP
              + ";io/activityservice/events/ingest/RoutingInboundHandler.onEvents"
              + ";io/activityservice/events/routing/EventRouter.route"
              + ";software/amazon/event/ruler/GenericMachine.rulesForJSONEvent 20",
          // a send made from inside the router counts as delivery
          LOOP
              + ";io/activityservice/events/routing/EventRouter.route"
              + ";io/activityservice/channel/jms/JmsOutboundChannel.send"
              + ";org/apache/activemq/ActiveMQSession.send;java/net/SocketOutputStream.write 15",
          // the commit made from the receive loop is settling
          LOOP
              + ";io/activityservice/channel/InboundSettlements.settle"
              + ";org/apache/activemq/ActiveMQSession.commit;writev 10",
          // the embedded broker's own threads
          "java/lang/Thread.run;org/apache/activemq/transport/tcp/TcpTransport.run"
              + ";org/apache/activemq/broker/TransportConnection.dispatchSync"
              + ";org/apache/activemq/store/kahadb/MessageDatabase.store 10",
          // compiler and GC threads, whatever they call
          "[C2 CompilerThread0 tid=12];thread_native_entry;CompileBroker::compiler_thread_loop;"
              + "io/activityservice/events/routing/EventRouter.route 6",
          "clone3;start_thread;thread_native_entry;Thread::call_run;GangWorker::run;G1ParTask::work 4",
          // an idle timer
          "java/lang/Thread.run;java/util/concurrent/ScheduledThreadPoolExecutor$Worker.run 5",
          "not a stack line");

  @Test
  void stacksGoToTheStageOfTheirLeafMostNamedFrame() {
    Map<String, Double> shares = Stages.shares(PROFILE);
    assertThat(shares.keySet()).containsExactlyElementsOf(Stages.STAGES);
    assertThat(shares.get("receive")).isCloseTo(0.30, within(1e-9));
    assertThat(shares.get("route")).isCloseTo(0.20, within(1e-9));
    assertThat(shares.get("deliver")).isCloseTo(0.15, within(1e-9));
    assertThat(shares.get("settle")).isCloseTo(0.10, within(1e-9));
    assertThat(shares.get("broker")).isCloseTo(0.10, within(1e-9));
    assertThat(shares.get("jit-gc")).isCloseTo(0.10, within(1e-9));
    assertThat(shares.get("other")).isCloseTo(0.05, within(1e-9));
  }

  @Test
  void anEmptyProfileHasNoShares() {
    assertThat(Stages.shares(List.of())).containsEntry("receive", 0.0).containsEntry("other", 0.0);
  }
}
