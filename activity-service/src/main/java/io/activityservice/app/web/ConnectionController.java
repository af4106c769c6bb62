package io.activityservice.app.web;

import io.activityservice.app.security.Caller;
import io.activityservice.app.security.Callers;
import io.activityservice.events.problem.NotFoundException;
import io.activityservice.events.webhook.Connection;
import io.activityservice.events.webhook.Connections;
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
 * Connections: {@code /api/v1/connections}, named outbound credentials that webhook subscriptions
 * (and rule webhook actions) refer to by name. The secret part (an API key's value, a password, a
 * client secret) is accepted on creation and never returned. Subscribers see, use and delete their
 * own; admins all.
 */
@RestController
@RequestMapping("/api/v1/connections")
class ConnectionController {

  /**
   * A new connection. {@code api-key}: {@code header} and {@code value}; {@code basic}: {@code
   * username} and {@code password}; {@code oauth2-client-credentials}: {@code tokenUrl}, {@code
   * clientId}, {@code clientSecret} and optionally {@code scope}.
   *
   * @param allowedTargets URL prefixes the credentials may be sent to (rule webhook actions need
   *     it); empty or absent: any target of your subscriptions
   */
  record ConnectionRequest(
      @Schema(
              requiredMode = Schema.RequiredMode.REQUIRED,
              pattern = "^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")
          String name,
      @Schema(
              requiredMode = Schema.RequiredMode.REQUIRED,
              allowableValues = {"api-key", "basic", "oauth2-client-credentials"})
          String type,
      String header,
      @Schema(accessMode = Schema.AccessMode.WRITE_ONLY) String value,
      String username,
      @Schema(accessMode = Schema.AccessMode.WRITE_ONLY) String password,
      String tokenUrl,
      String clientId,
      @Schema(accessMode = Schema.AccessMode.WRITE_ONLY) String clientSecret,
      String scope,
      @Schema(maxLength = 20) List<String> allowedTargets) {}

  /** A connection without its secret. */
  record ConnectionView(
      String name,
      String type,
      String header,
      String username,
      String tokenUrl,
      String clientId,
      String scope,
      List<String> allowedTargets,
      String owner,
      OffsetDateTime createdAt) {}

  private final Connections connections;

  ConnectionController(Connections connections) {
    this.connections = connections;
  }

  private ConnectionView view(Connection c) {
    return new ConnectionView(
        c.name(),
        c.type().text(),
        c.header(),
        c.username(),
        c.tokenUrl() == null ? null : c.tokenUrl().toString(),
        c.clientId(),
        c.scope(),
        connections.allowedTargets(c.name()),
        c.owner(),
        JsonViews.time(c.createdAt()));
  }

  @PostMapping
  @ResponseStatus(HttpStatus.CREATED) // documents the status; the ResponseEntity sets it
  ResponseEntity<ConnectionView> create(@RequestBody ConnectionRequest body) {
    Caller caller = Callers.current();
    Connection c =
        connections.create(
            new Connections.Draft(
                body.name(),
                body.type(),
                body.header(),
                body.value(),
                body.username(),
                body.password(),
                body.tokenUrl(),
                body.clientId(),
                body.clientSecret(),
                body.scope(),
                body.allowedTargets()),
            caller.id());
    return ResponseEntity.created(URI.create("/api/v1/connections/" + c.name())).body(view(c));
  }

  /** Every connection for admins, one's own for others. */
  @GetMapping
  List<ConnectionView> list() {
    Caller caller = Callers.current();
    return connections.list().stream().filter(c -> caller.owns(c.owner())).map(this::view).toList();
  }

  @GetMapping("/{name}")
  ConnectionView get(@PathVariable String name) {
    return view(visible(name));
  }

  /** Deletes a connection no subscription uses (409 otherwise). */
  @DeleteMapping("/{name}")
  @ResponseStatus(HttpStatus.NO_CONTENT)
  void delete(@PathVariable String name) {
    visible(name);
    connections.delete(name);
  }

  /** Another owner's connection is answered like a missing one (404). */
  private Connection visible(String name) {
    Connection c =
        connections.find(name).orElseThrow(() -> new NotFoundException("connection", name));
    if (!Callers.current().owns(c.owner())) {
      throw new NotFoundException("connection", name);
    }
    return c;
  }
}
