package io.activityservice.app.security;

import io.swagger.v3.oas.annotations.media.ArraySchema;
import io.swagger.v3.oas.annotations.media.Schema;
import java.net.URI;
import java.time.OffsetDateTime;
import java.util.List;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.DeleteMapping;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.ResponseStatus;
import org.springframework.web.bind.annotation.RestController;

/**
 * API keys, for admins: {@code /api/v1/api-keys}. The secret is in the answer to {@code POST} only.
 */
@RestController
@RequestMapping("/api/v1/api-keys")
class ApiKeyController {

  /**
   * A key to create.
   *
   * @param name what it is for
   * @param roles {@code admin}, {@code author}, {@code subscriber}, {@code publisher}, {@code
   *     metrics}
   * @param eventTypes event-type patterns: required for publisher, subscriber and author keys (what
   *     they may publish, read, or define and emit), empty for admin keys (an admin uses every
   *     type), e.g. {@code ["com.example.meter.*"]}, {@code ["*"]} for every type
   */
  record ApiKeyRequest(
      @Schema(
              requiredMode = Schema.RequiredMode.REQUIRED,
              minLength = 1,
              maxLength = 255,
              pattern = "\\S")
          String name,
      @ArraySchema(
              minItems = 1,
              schema =
                  @Schema(
                      allowableValues = {"admin", "author", "subscriber", "publisher", "metrics"}),
              arraySchema = @Schema(requiredMode = Schema.RequiredMode.REQUIRED))
          List<String> roles,
      @ArraySchema(
              schema = @Schema(description = "an event type, a prefix ending in *, or *"),
              arraySchema =
                  @Schema(
                      description =
                          "Event-type scope: required for publisher, subscriber and author keys, empty for admin keys"))
          List<String> eventTypes) {}

  /**
   * The answer to {@code POST}: the key and, once, the whole {@code key} to send as a bearer token.
   */
  record CreatedView(
      String id,
      String name,
      List<String> roles,
      List<String> eventTypes,
      OffsetDateTime createdAt,
      String createdBy,
      String key) {}

  private final ApiKeyService keys;

  ApiKeyController(ApiKeyService keys) {
    this.keys = keys;
  }

  @PostMapping
  @ResponseStatus(HttpStatus.CREATED) // documents the status; the ResponseEntity sets it
  ResponseEntity<CreatedView> create(@RequestBody ApiKeyRequest body) {
    ApiKeyService.CreatedKey created =
        keys.create(body.name(), body.roles(), body.eventTypes(), Callers.current().id());
    ApiKeyService.ApiKey k = created.key();
    return ResponseEntity.created(URI.create("/api/v1/api-keys/" + k.id()))
        .body(
            new CreatedView(
                k.id(),
                k.name(),
                k.roles(),
                k.eventTypes(),
                k.createdAt(),
                k.createdBy(),
                created.secret()));
  }

  @GetMapping
  List<ApiKeyService.ApiKey> list() {
    return keys.list();
  }

  @GetMapping("/{id}")
  ApiKeyService.ApiKey get(@PathVariable String id) {
    return keys.get(id);
  }

  /**
   * Revokes the key: refused from now on (on other replicas within
   * activity.security.key-cache-ttl).
   */
  @DeleteMapping("/{id}")
  @ResponseStatus(HttpStatus.NO_CONTENT)
  void revoke(@PathVariable String id) {
    keys.revoke(id);
  }
}
