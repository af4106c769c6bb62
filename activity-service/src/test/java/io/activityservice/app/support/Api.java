package io.activityservice.app.support;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.Map;

/** A tiny real-HTTP client for the service's REST API. */
public final class Api {

  /** A response with its status, content type and parsed JSON body (or null). */
  public record Response(int status, String contentType, JsonNode json, String body) {
  }

  private static final ObjectMapper MAPPER = new ObjectMapper();
  private final HttpClient client = HttpClient.newHttpClient();
  private final String base;

  public Api(int port) {
    this.base = "http://127.0.0.1:" + port;
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
    HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(base + path))
        .POST(HttpRequest.BodyPublishers.ofString(body));
    if (contentType != null) {
      b.header("Content-Type", contentType);
    }
    headers.forEach(b::header);
    return send(b);
  }

  public Response put(String path, String body) {
    return send(HttpRequest.newBuilder(URI.create(base + path)).header("Content-Type", "application/json")
        .PUT(HttpRequest.BodyPublishers.ofString(body)));
  }

  public Response postJson(String path, String body) {
    return post(path, "application/json", body);
  }

  public Response publish(String structuredEvent) {
    return post("/api/v1/events", "application/cloudevents+json", structuredEvent);
  }

  private Response send(HttpRequest.Builder builder) {
    try {
      HttpResponse<String> r = client.send(builder.build(), HttpResponse.BodyHandlers.ofString());
      String ct = r.headers().firstValue("Content-Type").orElse(null);
      JsonNode json = null;
      if (ct != null && ct.contains("json") && !r.body().isEmpty()) {
        json = MAPPER.readTree(r.body());
      }
      return new Response(r.statusCode(), ct, json, r.body());
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }
}
