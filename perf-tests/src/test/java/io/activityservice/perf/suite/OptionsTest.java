package io.activityservice.perf.suite;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The API key option: parsed in both forms and never shown in the options recorded for the report.
 */
class OptionsTest {

  @Test
  void theApiKeyIsParsedAndRedactedFromTheRecordedArguments() {
    Options spaced =
        Options.parse(
            new String[] {"--service-url", "http://127.0.0.1:8080", "--api-key", "ask_secret"});
    assertEquals("ask_secret", spaced.apiKey());
    assertEquals(
        List.of("--service-url", "http://127.0.0.1:8080", "--api-key", "(redacted)"),
        spaced.args());
    Options joined = Options.parse(new String[] {"--quick", "--api-key=ask_other"});
    assertEquals("ask_other", joined.apiKey());
    assertEquals(List.of("--quick", "--api-key=(redacted)"), joined.args());
    assertFalse((String.join(" ", joined.args()) + joined).contains("ask_other"));
  }

  @Test
  void fullRunsWarmUpFiftyThousandAndRunThePeerQuickRunsStayShort() {
    Options full = Options.parse(new String[] {});
    assertEquals(50_000, full.steady().warmup());
    assertEquals(10_000, full.steady().n());
    assertEquals(3, full.steady().bursts());
    assertEquals(0.02, full.steady().maxJitShare());
    assertEquals(30, full.steady().idleSeconds());
    assertEquals(true, full.camelPeer());
    assertEquals(true, full.profile());
    Options quick = Options.parse(new String[] {"--quick"});
    assertFalse(quick.camelPeer(), "the peer adds more than a minute: off in quick mode");
    assertFalse(quick.profile());
    assertEquals(100, quick.steady().warmup());
    Options some =
        Options.parse(
            new String[] {
              "--quick",
              "--peer",
              "camel",
              "--scenarios",
              "t2,ct2",
              "--warmup=5000",
              "--steady-n",
              "2000",
              "--steady-max-bursts",
              "5",
              "--max-jit-share",
              "0.05"
            });
    assertEquals(true, some.camelPeer());
    assertEquals(true, some.runs("CT2"));
    assertFalse(some.runs("T4"));
    assertEquals(new Options.Steady(5000, 2000, 3, 5, 0.05, 2), some.steady());
    org.junit.jupiter.api.Assertions.assertThrows(
        IllegalArgumentException.class, () -> Options.parse(new String[] {"--peer", "mule"}));
    org.junit.jupiter.api.Assertions.assertThrows(
        IllegalArgumentException.class, () -> Options.parse(new String[] {"--warmup", "0"}));
  }

  @Test
  void theScriptsFormsStillParseTheLastOfARepeatedOptionWinsAndBadInputShowsTheUsage() {
    Options o =
        Options.parse(
            new String[] {
              "--quick",
              "--no-build",
              "--reps",
              "3",
              "--reps=4",
              "--sqs=aws",
              "--profile",
              "--no-profile",
              "--large-n",
              "1_000,2000",
              "--large-reps",
              "1,1"
            });
    assertEquals(4, o.reps());
    assertEquals(true, o.sqsAws());
    assertEquals(null, o.sqsEndpoint());
    assertFalse(o.profile());
    assertEquals(List.of(1000, 2000), o.largeN());
    IllegalArgumentException unknown =
        org.junit.jupiter.api.Assertions.assertThrows(
            IllegalArgumentException.class, () -> Options.parse(new String[] {"--quikc"}));
    org.junit.jupiter.api.Assertions.assertTrue(
        unknown.getMessage().contains("--quikc") && unknown.getMessage().contains("--compare-jar"),
        unknown.getMessage());
    org.junit.jupiter.api.Assertions.assertThrows(
        IllegalArgumentException.class, () -> Options.parse(new String[] {"--sqs", "gcp"}));
    org.junit.jupiter.api.Assertions.assertThrows(
        IllegalArgumentException.class, () -> Options.parse(new String[] {"--help"}));
  }
}
