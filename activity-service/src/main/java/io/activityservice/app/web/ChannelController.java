package io.activityservice.app.web;

import io.activityservice.app.security.AuditLog;
import io.activityservice.events.ingest.InboundChannelDefinition;
import io.activityservice.events.ingest.InboundChannels;
import io.swagger.v3.oas.annotations.Parameter;
import io.swagger.v3.oas.annotations.media.Schema;
import java.net.URI;
import java.time.OffsetDateTime;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Pattern;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.DeleteMapping;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.ResponseStatus;
import org.springframework.web.bind.annotation.RestController;

/**
 * Inbound channels the service listens on: {@code /api/v1/channels} (admins only). Property values
 * whose names look like credentials (password, secret, token, key, credential) are never returned.
 */
@RestController
@RequestMapping("/api/v1/channels")
class ChannelController {

  /** The value shown instead of a credential. */
  static final String REDACTED = "(redacted)";

  private static final Pattern CREDENTIAL =
      Pattern.compile(".*(password|passwd|secret|token|key|credential).*");

  record ChannelRequest(
      @Schema(requiredMode = Schema.RequiredMode.REQUIRED) String uri,
      String defaultType,
      String defaultSource,
      Map<String, String> properties) {}

  /** A channel as the API shows it: credentials in {@code properties} redacted. */
  record ChannelView(
      String uri,
      String defaultType,
      @Schema(format = "uri-reference") URI defaultSource,
      Map<String, String> properties,
      String origin,
      OffsetDateTime createdAt) {
    static ChannelView of(InboundChannelDefinition d) {
      Map<String, String> shown = new LinkedHashMap<>();
      d.properties()
          .forEach(
              (name, value) ->
                  shown.put(
                      name,
                      CREDENTIAL.matcher(name.toLowerCase(Locale.ROOT)).matches()
                          ? REDACTED
                          : value));
      return new ChannelView(
          d.uri(), d.defaultType(), d.defaultSource(), shown, d.origin(), d.createdAt());
    }
  }

  private final InboundChannels inbound;

  ChannelController(InboundChannels inbound) {
    this.inbound = inbound;
  }

  @PostMapping
  @ResponseStatus(HttpStatus.CREATED) // documents the status; the ResponseEntity sets it
  ResponseEntity<ChannelView> add(@RequestBody ChannelRequest body) {
    AuditLog.resourceId(body.uri());
    return ResponseEntity.status(HttpStatus.CREATED)
        .body(
            ChannelView.of(
                inbound.add(
                    body.uri(), body.defaultType(), body.defaultSource(), body.properties())));
  }

  @GetMapping
  List<ChannelView> list() {
    return inbound.list().stream().map(ChannelView::of).toList();
  }

  /**
   * {@code DELETE /api/v1/channels?uri=sqs:orders-in}: URIs contain ':' and '/', so they travel as
   * a parameter.
   */
  @DeleteMapping
  @ResponseStatus(HttpStatus.NO_CONTENT)
  void remove(@Parameter(schema = @Schema(pattern = "\\S")) @RequestParam("uri") String uri) {
    inbound.remove(uri);
  }
}
