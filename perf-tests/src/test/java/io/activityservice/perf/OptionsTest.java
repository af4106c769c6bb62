package io.activityservice.perf;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The API key option: parsed in both forms and never shown in the options recorded for the report. */
class OptionsTest {

  @Test
  void theApiKeyIsParsedAndRedactedFromTheRecordedArguments() {
    Options spaced = Options.parse(new String[] {"--service-url", "http://127.0.0.1:8080", "--api-key", "ask_secret"});
    assertThat(spaced.apiKey()).isEqualTo("ask_secret");
    assertThat(spaced.args()).containsExactly("--service-url", "http://127.0.0.1:8080", "--api-key", "(redacted)");
    Options joined = Options.parse(new String[] {"--quick", "--api-key=ask_other"});
    assertThat(joined.apiKey()).isEqualTo("ask_other");
    assertThat(joined.args()).containsExactly("--quick", "--api-key=(redacted)");
    assertThat(String.join(" ", joined.args()) + joined).doesNotContain("ask_other");
  }
}
