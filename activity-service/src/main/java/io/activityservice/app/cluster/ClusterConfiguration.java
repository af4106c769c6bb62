package io.activityservice.app.cluster;

import io.activityservice.events.channel.ChannelRegistry;
import io.activityservice.events.cluster.ClusterMembers;
import io.activityservice.events.cluster.ClusterModeGuard;
import io.activityservice.events.cluster.ConfigApplyWaiter;
import io.activityservice.events.cluster.ConfigChangeLog;
import io.activityservice.events.cluster.ConfigPropagator;
import io.activityservice.events.cluster.ProcessorRouting;
import io.activityservice.events.routing.EventRouter;
import java.time.Clock;
import java.util.List;
import javax.sql.DataSource;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.event.ApplicationReadyEvent;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ApplicationContext;
import org.springframework.boot.sql.init.dependency.DependsOnDatabaseInitialization;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.event.EventListener;

/**
 * Several replicas on one database and one broker: the configuration change log and its propagator (always on:
 * cheap, and correct for one node too), the cluster view's heartbeat, and — with {@code activity.cluster.enabled} —
 * the routing of detector and rule-set input through internal broker channels.
 */
@Configuration(proxyBeanMethods = false)
public class ClusterConfiguration {

  /**
   * This replica's heartbeat, started once the {@link ClusterModeGuard} has found no live replica of the other mode
   * on the database: before any other service is built, so nothing consumes or answers when the guard refuses.
   */
  @DependsOnDatabaseInitialization
  @Bean(destroyMethod = "close")
  ClusterMembers clusterMembers(DataSource dataSource, ClusterProperties props, Clock clock) {
    new ClusterModeGuard(dataSource, clock).check(props.replicaId(), null, props.enabled(), props.heartbeat());
    return new ClusterMembers(dataSource, props.replicaId(), clock, props.heartbeat(), props.enabled()).start();
  }

  /** Built after the cluster-mode check: every service that changes configuration needs it. */
  @DependsOnDatabaseInitialization
  @Bean
  ConfigChangeLog configChangeLog(DataSource dataSource, ClusterProperties props, Clock clock,
                                  ClusterMembers members) {
    return new ConfigChangeLog(dataSource, props.replicaId(), clock);
  }

  @DependsOnDatabaseInitialization
  @Bean(destroyMethod = "close")
  ConfigPropagator configPropagator(ConfigChangeLog changes, DataSource dataSource, ClusterProperties props) {
    return new ConfigPropagator(changes, dataSource, props.configPollInterval());
  }

  /** Detector and rule-set input through the broker; only with {@code activity.cluster.enabled=true}. */
  @Bean(destroyMethod = "close")
  @ConditionalOnProperty(name = "activity.cluster.enabled", havingValue = "true")
  ProcessorRouting processorRouting(ChannelRegistry channels, ClusterProperties props, EventRouter router) {
    ProcessorRouting routing = new ProcessorRouting(channels, props.internalChannel());
    router.addForwarder(routing::forward);
    return routing;
  }

  @Bean
  ClusterStarter clusterStarter(ConfigPropagator propagator, ClusterMembers members,
                                ObjectProvider<ProcessorRouting> routing, ApplicationContext context) {
    return new ClusterStarter(propagator, members, routing, context);
  }

  /** What a definition write waits on until every live replica runs its version ({@link ConfigApplyFilter}). */
  @Bean
  ConfigApplyWaiter configApplyWaiter(ClusterProperties props, ConfigPropagator propagator, ClusterStarter starter) {
    ConfigApplyWaiter waiter = new ConfigApplyWaiter(props.replicaId(), propagator::appliedVersion, starter::members);
    propagator.onOthersApplied(waiter::signal);
    starter.waiter = waiter;
    return waiter;
  }

  /** Starts propagation, and the heartbeat's full report, once every service has registered how it applies changes. */
  public static final class ClusterStarter {
    private final ConfigPropagator propagator;
    private final ClusterMembers members;
    private final ObjectProvider<ProcessorRouting> routing;
    private final ApplicationContext context;
    private volatile boolean started;
    private volatile ConfigApplyWaiter waiter;

    ClusterStarter(ConfigPropagator propagator, ClusterMembers members, ObjectProvider<ProcessorRouting> routing,
                   ApplicationContext context) {
      this.propagator = propagator;
      this.members = members;
      this.routing = routing;
      this.context = context;
    }

    @EventListener(ApplicationReadyEvent.class)
    public void start() {
      String address = context instanceof WebServerApplicationContext web && web.getWebServer() != null
          ? "port " + web.getWebServer().getPort() : null;
      // As soon as this replica applied a newer version: written for the other replicas' waiting writers (and
      // announced), and this replica's own waiting writers woken.
      propagator.onApplied(v -> {
        members.reportApplied(v);
        ConfigApplyWaiter w = waiter;
        if (w != null) {
          w.signal();
        }
      });
      members.report(address, propagator::appliedVersion, () -> {
        ProcessorRouting r = routing.getIfAvailable();
        return r == null ? List.of() : r.ownership();
      });
      started = true;
      propagator.start();
    }

    /** The cluster view once this replica runs, or null before: until then writers wait for this process only. */
    public ClusterMembers members() {
      return started ? members : null;
    }
  }
}
