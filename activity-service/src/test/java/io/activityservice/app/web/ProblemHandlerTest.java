package io.activityservice.app.web;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;

@ExtendWith(OutputCaptureExtension.class)
class ProblemHandlerTest {

  @Test
  void aFiveHundredEchoesNothingButAnErrorIdTheLogCarriesToo(CapturedOutput output) {
    ResponseEntity<ProblemDetail> r = new ProblemHandler().unexpected(
        new IllegalStateException("connect to jdbc:postgresql://admin:s3cret@db.internal:5432/activity failed"));
    assertThat(r.getStatusCode().value()).isEqualTo(500);
    ProblemDetail p = r.getBody();
    String errorId = (String) p.getProperties().get("errorId");
    assertThat(errorId).matches("[0-9a-f-]{36}");
    assertThat(p.getDetail()).contains(errorId).doesNotContain("s3cret").doesNotContain("db.internal")
        .doesNotContain("IllegalStateException");
    assertThat(output.getOut()).contains("unexpected error " + errorId).contains("IllegalStateException");
  }
}
