package io.activityservice.perf.service;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The service's REST API as the suite uses it: inbound channels, subscriptions, detectors and
 * rules, and health. Everything created is remembered and removed again by {@link #cleanUp()} (at
 * most 30 s). Every request to the service, including the events the REST producer posts ({@code
 * RestSender}), is built by {@link #request(String)}: headers every request needs (e.g. an API key)
 * go there, in one place.
 */
public final class ServiceApi {

  private static final ObjectMapper JSON = new ObjectMapper();
  // Generous: adding a Kafka inbound channel waits for its consumer group, which took over 10 s on
  // a loaded machine.
  private static final Duration TIMEOUT = Duration.ofSeconds(60);

  /** An HTTP answer. */
  public record Answer(int status, String body) {
    /** Whether the status is 2xx. */
    public boolean ok() {
      return status / 100 == 2;
    }
  }

  private final HttpClient http;
  private final String base;
  private final String apiKey;
  private final List<String> cleanUps = new ArrayList<>();

  /**
   * The API of the service at {@code baseUrl} (e.g. {@code http://127.0.0.1:8080}).
   *
   * @param apiKey an admin key of that service, or null for a service without authentication
   */
  public ServiceApi(HttpClient http, String baseUrl, String apiKey) {
    this.http = http;
    this.base = baseUrl.endsWith("/") ? baseUrl.substring(0, baseUrl.length() - 1) : baseUrl;
    this.apiKey = apiKey;
  }

  /** The base URL, without a trailing slash. */
  public String baseUrl() {
    return base;
  }

  /** The HTTP client shared by every request to the service. */
  public HttpClient http() {
    return http;
  }

  /**
   * A request to {@code path} (e.g. {@code /api/v1/events}) on the service with the headers every
   * request carries; the one place to add, say, {@code Authorization: Bearer <key>}.
   */
  public HttpRequest.Builder request(String path) {
    HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(base + path));
    return apiKey == null ? b : b.header("Authorization", "Bearer " + apiKey);
  }

  /** Whether {@code /actuator/health} answers UP. */
  public boolean healthy() {
    try {
      Answer a = get("/actuator/health");
      return a.ok() && a.body().contains("\"UP\"");
    } catch (IOException e) {
      return false;
    }
  }

  /** Makes the service listen on {@code uri}. */
  public void addInbound(String uri) throws IOException {
    Answer a = post("/api/v1/channels", json(Map.of("uri", uri)));
    require(a, "POST /api/v1/channels " + uri);
    cleanUps.add("/api/v1/channels?uri=" + URLEncoder.encode(uri, StandardCharsets.UTF_8));
  }

  /** Subscribes {@code target} to events of {@code type}; returns the subscription id. */
  public String subscribe(String name, String type, String target) throws IOException {
    return subscribe(name, type, target, Map.of());
  }

  /**
   * Subscribes {@code target} to events of {@code type} with further fields of the subscription
   * (e.g. {@code retry}); returns the subscription id.
   */
  public String subscribe(String name, String type, String target, Map<String, Object> more)
      throws IOException {
    Map<String, Object> body = new java.util.LinkedHashMap<>(more);
    body.put("name", name);
    if (!body.containsKey("pattern")) { // "more" may bring its own pattern (type is then unused)
      body.put("pattern", Map.of("type", List.of(type)));
    }
    body.put("target", target);
    Answer a = post("/api/v1/subscriptions", json(body));
    require(a, "POST /api/v1/subscriptions " + name);
    String id = JSON.readTree(a.body()).path("id").asText();
    cleanUps.add("/api/v1/subscriptions/" + id);
    return id;
  }

  /**
   * Deletes a subscription created by {@link #subscribe} now (its parked deliveries are dropped
   * with it).
   */
  public void unsubscribe(String id) {
    String path = "/api/v1/subscriptions/" + id;
    delete(path);
    cleanUps.remove(path);
  }

  /** Deploys an Esper detector; returns the raw answer (404 when the API is absent). */
  public Answer addDetector(String name, String inputType, String epl, String emits)
      throws IOException {
    Answer a =
        post(
            "/api/v1/detectors",
            json(
                Map.of(
                    "name", name, "inputs", Map.of("R", inputType), "epl", epl, "emits", emits)));
    if (a.ok()) {
      cleanUps.add("/api/v1/detectors/" + URLEncoder.encode(name, StandardCharsets.UTF_8));
    }
    return a;
  }

  /** Deploys a Drools rule set; returns the raw answer (404 when the API is absent). */
  public Answer addRule(String name, String drl) throws IOException {
    Answer a = post("/api/v1/rules", json(Map.of("name", name, "drl", drl)));
    if (a.ok()) {
      cleanUps.add("/api/v1/rules/" + URLEncoder.encode(name, StandardCharsets.UTF_8));
    }
    return a;
  }

  /**
   * Removes the detectors and rules created so far (used between the relay-only and loaded phases).
   */
  public void removeDetectorsAndRules() {
    for (String path : List.copyOf(cleanUps)) {
      if (path.startsWith("/api/v1/detectors/") || path.startsWith("/api/v1/rules/")) {
        delete(path);
        cleanUps.remove(path);
      }
    }
  }

  /** Deletes everything this instance created, newest first; failures are ignored. */
  public void cleanUp() {
    long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
    for (int i = cleanUps.size() - 1; i >= 0 && System.nanoTime() < deadline; i--) {
      delete(cleanUps.get(i));
    }
    cleanUps.clear();
  }

  /** The JSON of {@code path}, or null if it cannot be read. */
  public JsonNode getJson(String path) {
    try {
      Answer a = get(path);
      return a.ok() ? JSON.readTree(a.body()) : null;
    } catch (IOException e) {
      return null;
    }
  }

  /**
   * POSTs a JSON body to {@code path} and returns the answer as it is (nothing is remembered for
   * clean-up).
   */
  public Answer postJson(String path, String body) throws IOException {
    return post(path, body);
  }

  /** Whether the key is accepted (an admin-only endpoint answers 200). */
  public boolean authorized() throws IOException {
    // Inbound channels are admin-only, and every version of the service lists them (an older jar
    // without
    // authentication, run by --compare-jar, answers too).
    return get("/api/v1/channels").ok();
  }

  private void delete(String path) {
    try {
      send(request(path).timeout(TIMEOUT).DELETE().build());
    } catch (IOException e) {
      // best effort
    }
  }

  /** GETs {@code path} on the service (e.g. {@code /actuator/prometheus}). */
  public Answer get(String path) throws IOException {
    return send(request(path).timeout(TIMEOUT).GET().build());
  }

  private Answer post(String path, String body) throws IOException {
    return send(
        request(path)
            .timeout(TIMEOUT)
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(body))
            .build());
  }

  private Answer send(HttpRequest request) throws IOException {
    try {
      HttpResponse<String> r = http.send(request, HttpResponse.BodyHandlers.ofString());
      return new Answer(r.statusCode(), r.body());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted", e);
    }
  }

  private static String json(Object value) throws IOException {
    return JSON.writeValueAsString(value);
  }

  private static void require(Answer a, String what) throws IOException {
    if (!a.ok()) {
      throw new IOException(what + " answered " + a.status() + ": " + a.body());
    }
  }
}
