package io.activityservice.app.cluster;

import io.activityservice.events.cluster.ClusterModeGuard;
import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/**
 * Turns the cluster-mode guard's refusal into Spring Boot's short "APPLICATION FAILED TO START"
 * report (what was found, what to do) instead of a chain of bean-creation exceptions.
 */
class ClusterModeFailureAnalyzer
    extends AbstractFailureAnalyzer<ClusterModeGuard.ConflictException> {

  @Override
  protected FailureAnalysis analyze(
      Throwable rootFailure, ClusterModeGuard.ConflictException cause) {
    return new FailureAnalysis(cause.description(), cause.action(), cause);
  }
}
