package io.activityservice.perf;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The API key option: parsed in both forms and never shown in the options recorded for the report. */
class OptionsTest {

  @Test
  void theApiKeyIsParsedAndRedactedFromTheRecordedArguments() {
    Options spaced = Options.parse(new String[] {"--service-url", "http://127.0.0.1:8080", "--api-key", "ask_secret"});
    assertEquals("ask_secret", spaced.apiKey());
    assertEquals(List.of("--service-url", "http://127.0.0.1:8080", "--api-key", "(redacted)"), spaced.args());
    Options joined = Options.parse(new String[] {"--quick", "--api-key=ask_other"});
    assertEquals("ask_other", joined.apiKey());
    assertEquals(List.of("--quick", "--api-key=(redacted)"), joined.args());
    assertFalse((String.join(" ", joined.args()) + joined).contains("ask_other"));
  }
}
