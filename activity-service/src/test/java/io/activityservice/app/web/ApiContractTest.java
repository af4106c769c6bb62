package io.activityservice.app.web;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.activityservice.app.support.Api;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;

/**
 * The HTTP contract that the schemathesis run ({@code .ci/schemathesis.sh}) holds the service to,
 * over real HTTP: malformed requests get 4xx problems (never a 500), undeclared methods 405 with
 * {@code Allow}, and the OpenAPI document declares the error answers, the bearer scheme and the
 * success statuses the server really gives.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class ApiContractTest {

  private static final ObjectMapper MAPPER = new ObjectMapper();
  private final HttpClient client = HttpClient.newHttpClient();

  @LocalServerPort int port;

  private record Answer(int status, String contentType, JsonNode json, HttpResponse<String> raw) {}

  private Answer send(String method, String path, String contentType, String body)
      throws Exception {
    HttpRequest.Builder b =
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
            .header("Authorization", "Bearer " + Api.ADMIN_KEY)
            .method(
                method,
                body == null
                    ? HttpRequest.BodyPublishers.noBody()
                    : HttpRequest.BodyPublishers.ofString(body));
    if (contentType != null) {
      b.header("Content-Type", contentType);
    }
    HttpResponse<String> r = client.send(b.build(), HttpResponse.BodyHandlers.ofString());
    String ct = r.headers().firstValue("Content-Type").orElse("");
    JsonNode json = ct.contains("json") && !r.body().isEmpty() ? MAPPER.readTree(r.body()) : null;
    return new Answer(r.statusCode(), ct, json, r);
  }

  private static void assertProblem(Answer a, int status, String field) {
    assertThat(a.status()).as(a.raw().body()).isEqualTo(status);
    assertThat(a.contentType()).startsWith("application/problem+json");
    if (field != null) {
      assertThat(a.json().path("field").asText()).isEqualTo(field);
    }
  }

  @Test
  void undeclaredMethodIs405WithAllow() throws Exception {
    Answer a = send("QUERY", "/api/v1/audit", null, null);
    assertProblem(a, 405, null);
    assertThat(a.raw().headers().firstValue("Allow"))
        .hasValueSatisfying(allow -> assertThat(allow).contains("GET"));

    Answer put = send("PUT", "/api/v1/subscriptions", "application/json", "{}");
    assertProblem(put, 405, null);
    assertThat(put.raw().headers().firstValue("Allow").orElse("")).contains("GET").contains("POST");
  }

  @Test
  void multipartContentTypeWithoutBoundaryIsNoServerError() throws Exception {
    Answer get = send("GET", "/api/v1/event-types", "multipart/form-data", null);
    assertThat(get.status()).as(get.raw().body()).isEqualTo(200);
    Answer delete = send("DELETE", "/api/v1/event-types/no.such.type", "multipart/form-data", null);
    assertProblem(delete, 404, null);
    Answer post = send("POST", "/api/v1/subscriptions", "multipart/form-data", "--x");
    assertProblem(post, 415, "Content-Type");
  }

  @Test
  void malformedQueryStringAndRefusedPathsAre400Problems() throws Exception {
    assertProblem(send("GET", "/api/v1/event-types?q=a&=x", null, null), 400, "query");
    assertProblem(send("GET", "/api/v1/subscriptions/a%3Bb", null, null), 400, "path");
    assertProblem(send("GET", "/api/v1/audit?limit=0", null, null), 400, "limit");
  }

  @Test
  void bodiesAreReadAsTypedNotCoerced() throws Exception {
    assertProblem(
        send(
            "POST",
            "/api/v1/archives",
            "application/json",
            "{\"name\": false, \"retention\": \"P7D\"}"),
        400,
        "name");
    assertProblem(
        send(
            "POST",
            "/api/v1/subscriptions",
            "application/json",
            "{\"name\": \"n\", \"pattern\": {}, \"target\": \"jms:queue:x\", \"retry\": {\"maxAttempts\": \"5\"}}"),
        400,
        "retry.maxAttempts");
    assertProblem(
        send(
            "POST",
            "/api/v1/replays",
            "application/json",
            """
        {"name": "r1", "archive": "a", "from": "2026-01-01T00:00:00Z", "to": "2026-01-02T00:00:00Z",
         "destinations": {"rules": [null]}}"""),
        400,
        "destinations.rules[0]");
  }

  @Test
  void openApiDeclaresErrorsSecurityAndSuccessStatuses() throws Exception {
    Answer a = send("GET", "/v3/api-docs", null, null);
    assertThat(a.status()).isEqualTo(200);
    JsonNode doc = a.json();
    assertThat(doc.at("/components/securitySchemes/bearer/scheme").asText()).isEqualTo("bearer");
    assertThat(doc.at("/components/schemas/Problem/properties/field").isMissingNode()).isFalse();

    JsonNode create = doc.at("/paths/~1api~1v1~1subscriptions/post");
    assertThat(create.at("/responses").fieldNames())
        .toIterable()
        .contains("201", "400", "401", "403", "409", "415");
    assertThat(create.at("/responses/401/content").has("application/problem+json")).isTrue();
    assertThat(doc.at("/components/schemas/SubscriptionRequest/required"))
        .extracting(JsonNode::asText)
        .contains("name", "pattern", "target");

    // A definition write answers 202 with the lagging replicas when the wait for them runs out
    // (ConfigApplyFilter).
    assertThat(create.at("/responses/202/headers").has("Activity-Config-Lagging")).isTrue();
    assertThat(create.at("/responses/201/headers").has("Activity-Config-Version")).isTrue();
    assertThat(create.at("/responses/202/content")).isEqualTo(create.at("/responses/201/content"));

    JsonNode publish = doc.at("/paths/~1api~1v1~1events/post");
    assertThat(publish.at("/responses").has("202")).isTrue();
    assertThat(publish.at("/responses/202/headers").has("Activity-Config-Lagging"))
        .as("publishing never waits")
        .isFalse();
    assertThat(publish.at("/requestBody/content").fieldNames())
        .toIterable()
        .contains("application/cloudevents+json", "application/cloudevents-batch+json");

    JsonNode deleteType = doc.at("/paths/~1api~1v1~1event-types~1{type}/delete/responses");
    assertThat(deleteType.fieldNames()).toIterable().contains("204", "404").doesNotContain("200");
    JsonNode putType = doc.at("/paths/~1api~1v1~1event-types~1{type}/put/responses");
    assertThat(putType.fieldNames()).toIterable().contains("200", "201");
  }
}
