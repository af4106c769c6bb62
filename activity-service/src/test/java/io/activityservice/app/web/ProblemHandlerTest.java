package io.activityservice.app.web;

import static org.assertj.core.api.Assertions.assertThat;

import io.activityservice.app.support.Api;
import io.activityservice.app.support.Api.Response;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Import;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * A 500 over real HTTP: the answer carries only an error id, never the exception's text (which can
 * hold URLs with credentials, SQL or internal host names); the service log has the stack trace
 * under that id.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
@Import(ProblemHandlerTest.Failing.class)
@ExtendWith(OutputCaptureExtension.class)
class ProblemHandlerTest {

  static final String SECRET = "s3cret-Pa55word";

  /**
   * An endpoint that fails the way a broken dependency would (admin-only, like every unlisted
   * path).
   */
  @TestConfiguration(proxyBeanMethods = false)
  @RestController
  static class Failing {
    @GetMapping("/test/failing")
    String fail() {
      throw new IllegalStateException(
          "connect to jdbc:postgresql://admin:"
              + SECRET
              + "@db.internal:5432/activity"
              + " failed");
    }
  }

  @LocalServerPort int port;

  @Test
  void aFiveHundredEchoesNothingButAnErrorIdTheLogCarriesToo(CapturedOutput output) {
    Response r = new Api(port).get("/test/failing");
    assertThat(r.status()).isEqualTo(500);
    assertThat(r.contentType()).startsWith("application/problem+json");
    String errorId = r.json().get("errorId").asText();
    assertThat(errorId).matches("[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}");
    assertThat(r.json().get("detail").asText()).contains(errorId);
    assertThat(r.body())
        .doesNotContain(SECRET)
        .doesNotContain("db.internal")
        .doesNotContain("jdbc:")
        .doesNotContain("IllegalStateException");
    assertThat(output.getOut())
        .contains("unexpected error " + errorId)
        .contains("IllegalStateException");
  }
}
