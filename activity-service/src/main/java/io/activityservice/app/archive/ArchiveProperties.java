package io.activityservice.app.archive;

import io.activityservice.events.archive.ArchiveService;
import io.activityservice.events.archive.ReplayService;
import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Archives and replays ({@code activity.archive.*}).
 *
 * @param queueCapacity       events waiting to be written to archives; beyond it routing refuses (default 100000)
 * @param maintenanceInterval how often retention drops old storage and the coming days' partitions are created
 *                            (default 1h)
 * @param replay              replay settings
 */
@ConfigurationProperties("activity.archive")
public record ArchiveProperties(Integer queueCapacity, Duration maintenanceInterval, Replay replay) {

  public ArchiveProperties {
    queueCapacity = queueCapacity == null ? 100_000 : queueCapacity;
    maintenanceInterval = maintenanceInterval == null ? Duration.ofHours(1) : maintenanceInterval;
    replay = replay == null ? new Replay(null, null, null, null) : replay;
    if (queueCapacity < 1) {
      throw new IllegalArgumentException("activity.archive.queue-capacity must be at least 1, e.g. 100000");
    }
    if (maintenanceInterval.toMillis() < 100) {
      throw new IllegalArgumentException("activity.archive.maintenance-interval must be at least 100ms, e.g. 1h");
    }
  }

  /**
   * @param lease       how long a replica holds a replay between progress records; another replica resumes it after
   *                    (default 30s)
   * @param poll        how often idle replicas look for replays to run (default 10s): the replica that creates a
   *                    replay starts it at once, this check finds replays whose runner died (lease ran out)
   * @param pageSize    archived events read per query (default 500)
   * @param maxInFlight replayed events handed over and not yet durable (default 256)
   */
  public record Replay(Duration lease, Duration poll, Integer pageSize, Integer maxInFlight) {
    public Replay {
      lease = lease == null ? Duration.ofSeconds(30) : lease;
      poll = poll == null ? Duration.ofSeconds(10) : poll;
      pageSize = pageSize == null ? 500 : pageSize;
      maxInFlight = maxInFlight == null ? 256 : maxInFlight;
      if (pageSize < 1 || maxInFlight < 1) {
        throw new IllegalArgumentException("activity.archive.replay.page-size and max-in-flight must be at least 1");
      }
    }
  }

  ArchiveService.Settings archiveSettings() {
    return new ArchiveService.Settings(queueCapacity, maintenanceInterval);
  }

  ReplayService.Settings replaySettings() {
    return new ReplayService.Settings(replay.lease(), replay.poll(), replay.pageSize(), replay.maxInFlight());
  }
}
