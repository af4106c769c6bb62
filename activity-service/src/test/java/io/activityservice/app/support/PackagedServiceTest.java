package io.activityservice.app.support;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Instant;
import java.util.zip.ZipEntry;
import java.util.zip.ZipOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The packaged ITs refuse a built jar that is not the code under test: OrderingPerKeyIT once ran in
 * the {@code test} phase against a jar packaged before ordering was merged, and reported the old
 * service's unordered retries as an ordering bug.
 */
class PackagedServiceTest {

  private static final Instant BUILT = Instant.parse("2026-11-26T07:37:34Z");

  @TempDir Path root;

  private Path jar() throws IOException {
    Path jar = root.resolve("activity-service/target/activity-service-0.1.0-SNAPSHOT.jar");
    Files.createDirectories(jar.getParent());
    try (OutputStream out = Files.newOutputStream(jar);
        ZipOutputStream zip = new ZipOutputStream(out)) {
      zip.putNextEntry(new ZipEntry("BOOT-INF/classes/io/activityservice/app/App.class"));
      zip.closeEntry();
      zip.putNextEntry(new ZipEntry("BOOT-INF/lib/event-service-0.1.0-SNAPSHOT.jar"));
      zip.closeEntry();
      zip.putNextEntry(new ZipEntry("BOOT-INF/lib/adapter-http-0.1.0-SNAPSHOT.jar"));
      zip.closeEntry();
      zip.putNextEntry(new ZipEntry("BOOT-INF/lib/jackson-core-2.19.0.jar"));
      zip.closeEntry();
    }
    Files.setLastModifiedTime(jar, FileTime.from(BUILT));
    return jar;
  }

  private void compiled(String moduleDir, Instant at) throws IOException {
    Path f = root.resolve(moduleDir).resolve("target/classes/io/activityservice/X.class");
    Files.createDirectories(f.getParent());
    Files.write(f, new byte[] {1});
    Files.setLastModifiedTime(f, FileTime.from(at));
  }

  @Test
  void aJarOlderThanTheClassesOfAModuleItContainsIsRefused() throws IOException {
    Path jar = jar();
    compiled("activity-service", BUILT.minusSeconds(60));
    compiled("event-service", BUILT.plusSeconds(150));

    assertThatThrownBy(() -> PackagedService.requireCurrent(jar, root))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("is older than")
        .hasMessageContaining("event-service")
        .hasMessageContaining("it is not the code under test")
        .hasMessageContaining("-Dservice.jar");
  }

  @Test
  void aChannelAdapterCompiledAfterThePackageIsFoundToo() throws IOException {
    Path jar = jar();
    compiled("channel-adapters/adapter-http", BUILT.plusSeconds(1));

    assertThatThrownBy(() -> PackagedService.requireCurrent(jar, root))
        .hasMessageContaining("adapter-http");
  }

  @Test
  void aJarPackagedAfterItsModulesWereCompiledIsTheCodeUnderTest() throws IOException {
    Path jar = jar();
    compiled("activity-service", BUILT.minusSeconds(5));
    compiled("event-service", BUILT.minusSeconds(60));
    compiled("channel-adapters/adapter-http", BUILT.minusSeconds(60));
    // A module the jar does not contain (perf-tests) may be compiled later.
    compiled("perf-tests", BUILT.plusSeconds(600));

    assertThatCode(() -> PackagedService.requireCurrent(jar, root)).doesNotThrowAnyException();
  }
}
