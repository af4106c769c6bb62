package io.activityservice.perf.profile;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Splits a CPU profile of the service (async-profiler's collapsed stacks: {@code frame;frame;…
 * weight}, root first) into the stages of the capacity model: receive (inbound adapters, ingest,
 * parsing), route (the router, Event Ruler, CESQL, subscriptions, transformations), deliver (the
 * durable delivery store and outbound channels' sends), settle (acknowledging or committing the
 * inbound messages), the embedded ActiveMQ broker (quick-start runs it in the service), JIT
 * compiler, GC, VM and JFR threads ("jit-gc"), and other (timers, transport I/O threads, the web
 * server, the rest). A stack goes to the stage of its frame nearest the leaf that names one, so a
 * send made from inside the router counts as delivery and a commit made from the receive loop as
 * settling; a stack whose thread is a JIT compiler, GC or VM thread (named in its first frames)
 * goes to JIT/GC whatever it calls.
 */
public final class Stages {

  /** The stages, in the order of the report's columns. */
  public static final List<String> STAGES =
      List.of("receive", "route", "deliver", "settle", "broker", "jit-gc", "other");

  /** Frames that name a JIT compiler, GC or VM thread (checked on the root side of a stack). */
  private static final List<String> JIT_GC =
      List.of(
          "CompileBroker",
          "C2Compiler",
          "C1Compiler",
          "CompilerThread",
          "GCTaskThread",
          "ConcurrentGCThread",
          "WorkerThread::run",
          "VMThread",
          "G1ServiceThread",
          "G1ConcurrentRefineThread",
          "G1PrimaryConcurrentRefineThread",
          "MonitorDeflationThread",
          "GangWorker",
          "JfrThreadSampler",
          "recorderthread_entry",
          "[GC",
          "[C2",
          "[C1",
          "[VM");

  /**
   * How many root-side frames may name such a thread ({@code clone3;start_thread;
   * thread_native_entry;Thread::call_run;…} come first).
   */
  private static final int THREAD_FRAMES = 6;

  /**
   * Per stage, substrings of a frame (class names with dots) that put a stack in it; checked per
   * frame in this order, so a frame of the delivery package named like a settlement is settling.
   */
  private static final Map<String, List<String>> MARKERS = markers();

  private static Map<String, List<String>> markers() {
    Map<String, List<String>> m = new LinkedHashMap<>();
    m.put(
        "settle",
        List.of(
            "Settler",
            "Settlement",
            "InboundSettlements",
            "ContiguousAcks",
            "Acknowledgement",
            ".acknowledge",
            ".commit",
            "commitSync",
            "commitAsync",
            "deleteMessageBatch",
            "DeleteMessage"));
    m.put(
        "broker",
        List.of(
            "org.apache.activemq.broker.",
            "org.apache.activemq.store.",
            "org.apache.activemq.usage.",
            "org.apache.activemq.network."));
    m.put(
        "deliver",
        List.of(
            "io.activityservice.events.delivery.",
            "OutboundChannel",
            "JmsSenderPool",
            "SendLane",
            "SendCork",
            "WebhookClient",
            "KafkaProducer",
            "sendMessageBatch",
            "SendMessage"));
    m.put(
        "route",
        List.of(
            "io.activityservice.events.routing.",
            "io.activityservice.events.subscription.",
            "io.activityservice.events.transform.",
            "software.amazon.event.ruler.",
            "cesql"));
    m.put(
        "receive",
        List.of(
            "io.activityservice.events.ingest.",
            "InboundChannel",
            "ReceiveLoop",
            "ReceivedBatch",
            "InboundMessages",
            "CloudEventCodec",
            "CloudEventJson",
            "receiveMessage",
            "ReceiveMessage",
            "KafkaConsumer.poll",
            "ActiveMQMessageConsumer"));
    return m;
  }

  private Stages() {}

  /** The stage of one stack (frames root first). */
  public static String stageOf(List<String> frames) {
    for (int i = 0; i < Math.min(THREAD_FRAMES, frames.size()); i++) {
      String f = frames.get(i);
      for (String marker : JIT_GC) {
        if (f.contains(marker)) {
          return "jit-gc";
        }
      }
    }
    for (int i = frames.size() - 1; i >= 0; i--) {
      String f = frames.get(i).replace('/', '.');
      for (Map.Entry<String, List<String>> stage : MARKERS.entrySet()) {
        for (String marker : stage.getValue()) {
          if (f.contains(marker)) {
            return stage.getKey();
          }
        }
      }
    }
    return "other";
  }

  /**
   * Each stage's share of the profile's weight (0 to 1, every stage present; all 0 for an empty
   * profile). Lines that are not {@code stack weight} are skipped.
   */
  public static Map<String, Double> shares(List<String> collapsed) {
    Map<String, Double> weight = new LinkedHashMap<>();
    STAGES.forEach(s -> weight.put(s, 0.0));
    double total = 0;
    for (String line : collapsed) {
      int space = line.lastIndexOf(' ');
      if (space <= 0) {
        continue;
      }
      double w;
      try {
        w = Double.parseDouble(line.substring(space + 1).trim());
      } catch (NumberFormatException e) {
        continue;
      }
      weight.merge(stageOf(List.of(line.substring(0, space).split(";"))), w, Double::sum);
      total += w;
    }
    if (total > 0) {
      double t = total;
      weight.replaceAll((k, v) -> v / t);
    }
    return weight;
  }
}
