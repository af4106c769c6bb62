package io.activityservice.perf.cli;

import java.nio.file.Path;
import picocli.CommandLine.Option;

/** The {@code --service-jar} option of every program that starts the service (a picocli mixin). */
public final class ServiceJar {

  /**
   * The jar {@code ./mvnw -pl activity-service -am package} builds, relative to the repository
   * root.
   */
  public static final String BUILT = "activity-service/target/activity-service-0.1.0-SNAPSHOT.jar";

  @Option(
      names = "--service-jar",
      paramLabel = "JAR",
      defaultValue = BUILT,
      description = "the service jar to start (default: ${DEFAULT-VALUE})")
  private Path jar;

  /** The jar given, or the built one. */
  public Path path() {
    return jar;
  }
}
