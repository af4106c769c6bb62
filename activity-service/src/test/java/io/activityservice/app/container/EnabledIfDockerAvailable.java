package io.activityservice.app.container;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.extension.ConditionEvaluationResult;
import org.junit.jupiter.api.extension.ExecutionCondition;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Runs the annotated test class only when Testcontainers finds a Docker engine; otherwise JUnit
 * reports it as skipped with the reason. Evaluated before Spring loads any context or a container
 * is started. (Same effect as {@code @Testcontainers(disabledWithoutDocker = true)}, without
 * needing the testcontainers-junit-jupiter module.)
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@ExtendWith(EnabledIfDockerAvailable.Condition.class)
public @interface EnabledIfDockerAvailable {

  /** Checks {@code DockerClientFactory.isDockerAvailable()} once per JVM. */
  final class Condition implements ExecutionCondition {

    private static volatile Boolean available;

    @Override
    public ConditionEvaluationResult evaluateExecutionCondition(ExtensionContext context) {
      if (dockerAvailable()) {
        return ConditionEvaluationResult.enabled("Docker engine available");
      }
      return ConditionEvaluationResult.disabled(
          "No Docker engine (Testcontainers DockerClientFactory"
              + ".isDockerAvailable() is false): the LocalStack and ActiveMQ containers cannot start. Without Docker the"
              + " same transports are tested on host servers: CrossTransportMatrixTest and"
              + " infra/tests/deploy-localstack-smoke.sh");
    }

    static boolean dockerAvailable() {
      Boolean result = available;
      if (result == null) {
        try {
          result = org.testcontainers.DockerClientFactory.instance().isDockerAvailable();
        } catch (RuntimeException | LinkageError e) {
          result = false;
        }
        available = result;
      }
      return result;
    }
  }
}
