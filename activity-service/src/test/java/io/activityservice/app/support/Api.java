package io.activityservice.app.support;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpHeaders;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.Map;

/**
 * A tiny real-HTTP client for the service's REST API. It sends {@link #ADMIN_KEY} as a bearer token
 * unless told otherwise ({@link #withKey(String)}, {@link #anonymous()}): every service a test
 * starts knows that key as its bootstrap admin key (Spring Boot tests through {@code
 * src/test/resources/config/application.properties}, packaged-jar tests through {@link
 * PackagedService#process}, which sets it in the process's environment).
 */
public final class Api {

  /**
   * The bootstrap admin key of every service the tests start. Keep it equal to {@code
   * activity.security.bootstrap-admin-key} in {@code
   * src/test/resources/config/application.properties}.
   */
  public static final String ADMIN_KEY = "test-bootstrap-admin-key-0123456789abcdef";

  /** A response with its status, content type, parsed JSON body (or null), raw body and headers. */
  public record Response(
      int status, String contentType, JsonNode json, String body, HttpHeaders headers) {
    /** The first value of a header, or null. */
    public String header(String name) {
      return headers.firstValue(name).orElse(null);
    }
  }

  private static final ObjectMapper MAPPER = new ObjectMapper();
  private final HttpClient client;
  private final String base;
  private final String key;

  /** A client of the service on {@code port} that sends the admin key. */
  public Api(int port) {
    this(port, ADMIN_KEY);
  }

  /** A client that sends {@code key} as a bearer token (null: no Authorization header). */
  public Api(int port, String key) {
    this(HttpClient.newHttpClient(), "http://127.0.0.1:" + port, key);
  }

  private Api(HttpClient client, String base, String key) {
    this.client = client;
    this.base = base;
    this.key = key;
  }

  /** The same service with another bearer token (an API key or a JWT). */
  public Api withKey(String otherKey) {
    return new Api(client, base, otherKey);
  }

  /** The same service without credentials. */
  public Api anonymous() {
    return new Api(client, base, null);
  }

  /** The bearer token sent, or null. */
  public String key() {
    return key;
  }

  public Response get(String path) {
    return send(HttpRequest.newBuilder(URI.create(base + path)).GET());
  }

  public Response delete(String path) {
    return send(HttpRequest.newBuilder(URI.create(base + path)).DELETE());
  }

  public Response post(String path, String contentType, String body) {
    return post(path, contentType, body, Map.of());
  }

  public Response post(String path, String contentType, String body, Map<String, String> headers) {
    HttpRequest.Builder b =
        HttpRequest.newBuilder(URI.create(base + path))
            .POST(HttpRequest.BodyPublishers.ofString(body));
    if (contentType != null) {
      b.header("Content-Type", contentType);
    }
    headers.forEach(b::header);
    return send(b);
  }

  public Response put(String path, String body) {
    return send(
        HttpRequest.newBuilder(URI.create(base + path))
            .header("Content-Type", "application/json")
            .PUT(HttpRequest.BodyPublishers.ofString(body)));
  }

  public Response postJson(String path, String body) {
    return post(path, "application/json", body);
  }

  public Response publish(String structuredEvent) {
    return post("/api/v1/events", "application/cloudevents+json", structuredEvent);
  }

  /**
   * Creates an API key as this client (an admin) and returns the whole key to send.
   *
   * @param roles e.g. {@code "publisher"}
   * @param eventTypes e.g. {@code "com.example.meter.*"}; none for keys without
   *     publisher/subscriber roles
   */
  public String createKey(
      String name, java.util.List<String> roles, java.util.List<String> eventTypes) {
    try {
      Response r =
          postJson(
              "/api/v1/api-keys",
              MAPPER.writeValueAsString(
                  Map.of("name", name, "roles", roles, "eventTypes", eventTypes)));
      if (r.status() != 201) {
        throw new IllegalStateException(
            "creating key " + name + " answered " + r.status() + ": " + r.body());
      }
      return r.json().get("key").asText();
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  private Response send(HttpRequest.Builder builder) {
    if (key != null) {
      builder.header("Authorization", "Bearer " + key);
    }
    try {
      HttpResponse<String> r = client.send(builder.build(), HttpResponse.BodyHandlers.ofString());
      String ct = r.headers().firstValue("Content-Type").orElse(null);
      JsonNode json = null;
      if (ct != null && ct.contains("json") && !r.body().isEmpty()) {
        json = MAPPER.readTree(r.body());
      }
      return new Response(r.statusCode(), ct, json, r.body(), r.headers());
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }
}
