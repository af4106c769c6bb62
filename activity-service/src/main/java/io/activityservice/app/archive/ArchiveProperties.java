package io.activityservice.app.archive;

import io.activityservice.events.archive.ArchiveService;
import io.activityservice.events.archive.ReplayService;
import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * Archives and replays ({@code activity.archive.*}).
 *
 * @param queueCapacity events waiting to be written to archives; beyond it routing refuses
 * @param maintenanceInterval how often retention drops old storage and the coming days' partitions
 *     are created
 * @param replay replay settings
 */
@ConfigurationProperties("activity.archive")
public record ArchiveProperties(
    @DefaultValue("100000") Integer queueCapacity,
    @DefaultValue("1h") Duration maintenanceInterval,
    @DefaultValue Replay replay) {

  public ArchiveProperties {
    if (queueCapacity < 1) {
      throw new IllegalArgumentException(
          "activity.archive.queue-capacity must be at least 1, e.g. 100000");
    }
    if (maintenanceInterval.toMillis() < 100) {
      throw new IllegalArgumentException(
          "activity.archive.maintenance-interval must be at least 100ms, e.g. 1h");
    }
  }

  /**
   * @param lease how long a replica holds a replay between progress records; another replica
   *     resumes it after
   * @param poll how often idle replicas look for replays to run: the replica that creates a replay
   *     starts it at once, this check finds replays whose runner died (lease ran out)
   * @param pageSize archived events read per query
   * @param maxInFlight replayed events handed over and not yet durable
   */
  public record Replay(
      @DefaultValue("30s") Duration lease,
      @DefaultValue("10s") Duration poll,
      @DefaultValue("500") Integer pageSize,
      @DefaultValue("256") Integer maxInFlight) {
    public Replay {
      if (pageSize < 1 || maxInFlight < 1) {
        throw new IllegalArgumentException(
            "activity.archive.replay.page-size and max-in-flight must be at least 1");
      }
    }
  }

  ArchiveService.Settings archiveSettings() {
    return new ArchiveService.Settings(queueCapacity, maintenanceInterval);
  }

  ReplayService.Settings replaySettings() {
    return new ReplayService.Settings(
        replay.lease(), replay.poll(), replay.pageSize(), replay.maxInFlight());
  }
}
