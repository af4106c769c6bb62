package io.activityservice.detector.esper.internal;

import com.espertech.esper.common.client.hook.condition.ConditionHandler;
import com.espertech.esper.common.client.hook.condition.ConditionHandlerContext;
import com.espertech.esper.common.client.hook.condition.ConditionHandlerFactory;
import com.espertech.esper.common.client.hook.condition.ConditionHandlerFactoryContext;
import com.espertech.esper.common.client.hook.condition.ConditionMatchRecognizeStatesMax;
import com.espertech.esper.common.client.hook.condition.ConditionPatternRuntimeSubexpressionMax;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Logs a detector reaching its pattern or match-recognize bound as a warning, at most once a minute
 * per detector runtime with the number of occurrences since. Without it Esper logs every occurrence
 * (every event that would start a pattern branch) at INFO with the statement text, which a detector
 * under load turns into a flood. Registered by class name ({@code
 * ConfigurationRuntimeConditionHandling}); Esper creates it per runtime.
 */
public final class LimitConditionLog implements ConditionHandlerFactory {

  private static final Logger log = LoggerFactory.getLogger(LimitConditionLog.class);
  static final long INTERVAL_NANOS = 60_000_000_000L;

  @Override
  public ConditionHandler getHandler(ConditionHandlerFactoryContext context) {
    return new Handler();
  }

  /** One runtime's handler: rate-limits its warnings. */
  static final class Handler implements ConditionHandler {
    private final AtomicLong occurrences = new AtomicLong();
    private volatile long lastLog = System.nanoTime() - INTERVAL_NANOS;

    @Override
    public void handle(ConditionHandlerContext context) {
      long n = occurrences.incrementAndGet();
      long now = System.nanoTime();
      if (now - lastLog < INTERVAL_NANOS) {
        return;
      }
      lastLog = now;
      occurrences.addAndGet(-n);
      log.warn(
          "detector runtime '{}' reached {} ({} time(s) since the last warning): further pattern branches or "
              + "matches are not started; raise the limit or narrow the detector",
          context.getRuntimeURI(),
          describe(context),
          n);
    }

    private static String describe(ConditionHandlerContext context) {
      if (context.getCondition() instanceof ConditionPatternRuntimeSubexpressionMax c) {
        return "its limit of "
            + c.getMax()
            + " pattern sub-expressions "
            + "(activity.detectors.max-pattern-subexpressions)";
      }
      if (context.getCondition() instanceof ConditionMatchRecognizeStatesMax c) {
        return "its limit of "
            + c.getMax()
            + " match-recognize states "
            + "(activity.detectors.max-match-recognize-states)";
      }
      return "a limit: " + context.getCondition();
    }
  }
}
