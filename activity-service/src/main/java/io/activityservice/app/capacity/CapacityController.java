package io.activityservice.app.capacity;

import io.swagger.v3.oas.annotations.Operation;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

/** {@code GET /api/v1/capacity}: the capacity model of this replica over its recent traffic. */
@RestController
class CapacityController {

  private final CapacityMonitor monitor;

  CapacityController(CapacityMonitor monitor) {
    this.monitor = monitor;
  }

  @Operation(
      summary = "How many more events per second this replica holds, and what runs out first",
      description =
          """
      The utilisation law U = X·D over the last `activity.capacity.window` (1m): this process's CPU time \
      (`cpuUtilisation`, a share of all its cores) and the events it received and delivered give the CPU demand \
      per event D; other processes on the host are fitted against the received rate over the window's samples \
      (least squares, other = a + b·X: `otherCpuCores` = a, `otherCpuMicrosPerEvent` = b, `otherFitSamples`), \
      so a co-located broker whose load grows with the traffic counts as demand per event; at the current mix \
      every path can grow until the host's cores reach `activity.capacity.target-utilisation` (0.8): \
      `maxEventsPerSecond` = (0.8·cores − a) / (D + b). \
      `paths` has one entry per inbound channel kind (`http` for this API, else the channel's scheme) × target \
      scheme seen in the window, with its rate, the CPU µs per delivered event at the current mix, the events \
      per second it can still take (`headroomEventsPerSecond`, ≥ 0) and the `bottleneck`: `service-cpu`, \
      `host-cpu` (the other processes' a + b·X exceeds the service's D·X) or `unknown` (no traffic, or no CPU \
      measurement). Brokers and remote endpoints are not measured: they can saturate first. Path rates are \
      exact with one inbound kind or one target scheme, otherwise shared out by the inbound kinds' share of \
      events. `activity.capacity.headroom.low` is 1 while `headroomShare` is below \
      `activity.capacity.warning-share` (0.2). See docs/operations.md.""")
  @GetMapping("/api/v1/capacity")
  CapacityModel.Capacity capacity() {
    return monitor.current();
  }
}
