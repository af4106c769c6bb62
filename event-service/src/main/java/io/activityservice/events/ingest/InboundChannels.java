package io.activityservice.events.ingest;

import io.activityservice.channel.ChannelUri;
import io.activityservice.channel.InboundChannel;
import io.activityservice.channel.InboundSettings;
import io.activityservice.channel.Redaction;
import io.activityservice.events.channel.ChannelRegistry;
import io.activityservice.events.cluster.ConfigChanges;
import io.activityservice.events.delivery.DeadLetters;
import io.activityservice.events.log.LogSafe;
import io.activityservice.events.problem.ConflictException;
import io.activityservice.events.problem.InvalidInputException;
import io.activityservice.events.problem.NotFoundException;
import java.net.URI;
import java.time.Clock;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The channels the service listens on: those from configuration plus those added through the API
 * (persisted). Channels start and stop at runtime without a restart.
 */
public class InboundChannels implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(InboundChannels.class);

  private record Running(InboundChannelDefinition definition, InboundChannel channel) {}

  private final ChannelRegistry channels;
  private final InboundChannelRepository repository;
  private final EventIngest ingest;
  private final DeadLetters deadLetters;
  private final Clock clock;
  private final Map<ChannelUri, Running> running = new ConcurrentHashMap<>();
  private final ConfigChanges changes;

  public InboundChannels(
      ChannelRegistry channels,
      InboundChannelRepository repository,
      EventIngest ingest,
      DeadLetters deadLetters,
      Clock clock) {
    this(channels, repository, ingest, deadLetters, clock, ConfigChanges.unrecorded());
  }

  /**
   * @param changes records each change so that every replica applies it ({@link #reload})
   */
  public InboundChannels(
      ChannelRegistry channels,
      InboundChannelRepository repository,
      EventIngest ingest,
      DeadLetters deadLetters,
      Clock clock,
      ConfigChanges changes) {
    this.channels = channels;
    this.repository = repository;
    this.ingest = ingest;
    this.deadLetters = deadLetters;
    this.clock = clock;
    this.changes = changes;
  }

  /** Kind of the inbound-channel changes in the configuration log. */
  public static final String CHANGE_KIND = "inbound-channel";

  /**
   * Applies a change another replica made: starts listening on a channel added through the API (as
   * a competing consumer, like the configured ones), or stops one that was removed. Channels from
   * configuration are left alone.
   */
  public synchronized void reload(String uri) {
    ChannelUri parsed;
    try {
      parsed = ChannelUri.parse(uri);
    } catch (IllegalArgumentException e) {
      log.warn(
          "ignoring a change of inbound channel '{}': {}",
          LogSafe.text(Redaction.uri(uri)),
          LogSafe.text(e.getMessage(), 1024));
      return;
    }
    java.util.Optional<InboundChannelDefinition> stored =
        repository.findAll().stream().filter(d -> d.uri().equals(parsed.toString())).findFirst();
    Running current = running.get(parsed);
    if (stored.isPresent() && current == null) {
      try {
        open(stored.get());
      } catch (RuntimeException e) {
        log.error(
            "inbound channel {} added on another replica could not start here: {}",
            LogSafe.text(Redaction.uri(uri)),
            LogSafe.text(e.getMessage(), 1024));
      }
    } else if (stored.isEmpty() && current != null && "api".equals(current.definition().origin())) {
      close(parsed);
    }
  }

  /**
   * Starts the configured channels and the persisted ones; a failing channel is logged, not fatal.
   */
  public void startAll(Collection<InboundChannelDefinition> configured) {
    List<InboundChannelDefinition> all = new ArrayList<>(configured);
    all.addAll(repository.findAll());
    for (InboundChannelDefinition d : all) {
      try {
        open(d);
      } catch (RuntimeException e) {
        log.error(
            "inbound channel {} not started: {}",
            LogSafe.text(Redaction.uri(d.uri())),
            LogSafe.text(e.getMessage(), 1024),
            e);
      }
    }
  }

  /** Adds, starts and persists a channel. */
  public InboundChannelDefinition add(
      String uri, String defaultType, String defaultSource, Map<String, String> properties) {
    URI source = parseSource(defaultSource);
    ChannelUri parsed = checkUri(uri);
    // Stored in normal form (lower-case scheme), the form remove() deletes by.
    InboundChannelDefinition d =
        new InboundChannelDefinition(
            parsed.toString(),
            blankToNull(defaultType),
            source,
            properties,
            "api",
            OffsetDateTime.now(clock));
    if (running.containsKey(parsed)) {
      throw new ConflictException("uri", "the service already listens on " + parsed);
    }
    open(d);
    try {
      changes.record(CHANGE_KIND, d.uri(), () -> repository.insert(d));
    } catch (RuntimeException e) {
      close(parsed);
      throw e;
    }
    return d;
  }

  /** Stops a channel and forgets it. Channels from configuration come back at the next start. */
  public void remove(String uri) {
    ChannelUri parsed = checkUri(uri);
    if (!running.containsKey(parsed)) {
      throw new NotFoundException("inbound channel", uri);
    }
    changes.record(CHANGE_KIND, parsed.toString(), () -> repository.delete(parsed.toString()));
    close(parsed);
  }

  public List<InboundChannelDefinition> list() {
    return running.values().stream().map(Running::definition).toList();
  }

  @Override
  public void close() {
    running.keySet().forEach(this::close);
  }

  private void open(InboundChannelDefinition d) {
    ChannelUri uri = checkUri(d.uri());
    InboundSettings settings =
        new InboundSettings(d.defaultType(), d.defaultSource(), d.properties());
    InboundChannel channel;
    try {
      channel =
          channels
              .adapter(uri)
              .openInbound(uri, settings, new RoutingInboundHandler(uri, ingest, deadLetters));
    } catch (UnsupportedOperationException e) {
      throw new InvalidInputException("uri", e.getMessage());
    }
    Running previous = running.putIfAbsent(uri, new Running(d, channel));
    if (previous != null) {
      channel.close();
      throw new ConflictException("uri", "the service already listens on " + uri);
    }
    log.info("listening on {}", LogSafe.text(Redaction.uri(uri)));
  }

  private void close(ChannelUri uri) {
    Running r = running.remove(uri);
    if (r != null) {
      r.channel().close();
      log.info("stopped listening on {}", LogSafe.text(Redaction.uri(uri)));
    }
  }

  private ChannelUri checkUri(String uri) {
    if (uri == null || uri.isBlank()) {
      throw new InvalidInputException("uri", "is required, e.g. sqs:orders-in or jms:topic:orders");
    }
    return channels.parse("uri", uri);
  }

  private static URI parseSource(String source) {
    if (source == null || source.isBlank()) {
      return null;
    }
    try {
      return new URI(source.trim());
    } catch (java.net.URISyntaxException e) {
      throw new InvalidInputException("defaultSource", "is not a URI-reference: " + e.getMessage());
    }
  }

  private static String blankToNull(String s) {
    return s == null || s.isBlank() ? null : s.trim();
  }
}
