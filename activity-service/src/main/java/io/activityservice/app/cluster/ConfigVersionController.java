package io.activityservice.app.cluster;

import io.activityservice.events.cluster.ConfigApplyWaiter;
import io.activityservice.events.cluster.ConfigChangeLog;
import io.activityservice.events.problem.InvalidInputException;
import io.activityservice.events.problem.NotFoundException;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RestController;

/**
 * {@code GET /api/v1/cluster/versions/{version}}: whether a configuration version (header {@code
 * Activity-Config-Version} of a definition write) is in force on every live replica — what a client
 * polls after a {@code 202} from a write whose wait for the replicas ran out ({@link
 * ConfigApplyFilter}).
 */
@RestController
class ConfigVersionController {

  private final ConfigApplyWaiter waiter;
  private final ConfigChangeLog changes;

  ConfigVersionController(ConfigApplyWaiter waiter, ConfigChangeLog changes) {
    this.waiter = waiter;
    this.changes = changes;
  }

  @GetMapping("/api/v1/cluster/versions/{version}")
  ConfigApplyWaiter.Status version(@PathVariable String version) {
    long v;
    try {
      v = Long.parseLong(version);
    } catch (NumberFormatException e) {
      throw new InvalidInputException(
          "version", "must be a configuration version, a whole number such as 42");
    }
    if (v < 1) {
      throw new InvalidInputException("version", "must be 1 or more");
    }
    if (v > changes.currentVersion()) {
      throw new NotFoundException("configuration version", version);
    }
    return waiter.status(v);
  }
}
