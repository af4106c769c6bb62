package io.activityservice.app.support;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.Map;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Assumptions;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.logging.LogType;

/**
 * A real headless Chromium (Debian's chromium and chromium-driver, driven by Selenium) with a fresh
 * profile, for the browser tests and the documentation's screenshots. Skips the calling test with
 * the reason when chromium or chromedriver is missing; under {@code CI=true} that fails instead
 * ({@code .ci/run} installs them).
 */
public final class HeadlessChromium implements AutoCloseable {

  static final Path CHROMIUM = Path.of(System.getProperty("console.chromium", "/usr/bin/chromium"));
  static final Path CHROMEDRIVER =
      Path.of(System.getProperty("console.chromedriver", "/usr/bin/chromedriver"));

  private final ChromeDriver driver;
  private final Path profile;

  private HeadlessChromium(ChromeDriver driver, Path profile) {
    this.driver = driver;
    this.profile = profile;
  }

  /** Starts the browser with a window of {@code width} × {@code height} CSS pixels. */
  public static HeadlessChromium start(int width, int height) throws IOException {
    String missing =
        !Files.isExecutable(CHROMIUM)
            ? CHROMIUM + " is missing"
            : !Files.isExecutable(CHROMEDRIVER) ? CHROMEDRIVER + " is missing" : null;
    if (missing != null) {
      String reason = missing + " (apt-get install chromium chromium-driver)";
      if ("true".equalsIgnoreCase(System.getenv("CI"))) {
        Assertions.fail(reason + " (CI=true: the browser tests must run)");
      }
      Assumptions.abort(reason);
    }
    Path profile = Files.createTempDirectory("console-chromium-");
    ChromeOptions options = new ChromeOptions();
    options.setBinary(CHROMIUM.toFile());
    // The flags this closed network needs (no background connections) plus a fresh profile.
    options.addArguments(
        "--headless=new",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-dev-shm-usage",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
        "--disable-quic",
        "--disable-extensions",
        "--force-device-scale-factor=1",
        "--lang=en-US",
        "--user-data-dir=" + profile,
        "--window-size=" + width + "," + height);
    options.setCapability("goog:loggingPrefs", Map.of(LogType.BROWSER, "ALL"));
    ChromeDriverService service =
        new ChromeDriverService.Builder()
            .usingDriverExecutable(CHROMEDRIVER.toFile())
            .usingAnyFreePort()
            .build();
    return new HeadlessChromium(new ChromeDriver(service, options), profile);
  }

  public ChromeDriver driver() {
    return driver;
  }

  @Override
  public void close() throws IOException {
    driver.quit();
    try (var files = Files.walk(profile)) {
      files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    }
  }
}
