package io.activityservice.app.web;

import io.activityservice.events.ingest.InboundChannelDefinition;
import io.activityservice.events.ingest.InboundChannels;
import java.util.List;
import java.util.Map;
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

/** Inbound channels the service listens on: {@code /api/v1/channels}. */
@RestController
@RequestMapping("/api/v1/channels")
class ChannelController {

  record ChannelRequest(String uri, String defaultType, String defaultSource, Map<String, String> properties) {
  }

  private final InboundChannels inbound;

  ChannelController(InboundChannels inbound) {
    this.inbound = inbound;
  }

  @PostMapping
  ResponseEntity<InboundChannelDefinition> add(@RequestBody ChannelRequest body) {
    return ResponseEntity.status(HttpStatus.CREATED)
        .body(inbound.add(body.uri(), body.defaultType(), body.defaultSource(), body.properties()));
  }

  @GetMapping
  List<InboundChannelDefinition> list() {
    return inbound.list();
  }

  /** {@code DELETE /api/v1/channels?uri=sqs:orders-in}: URIs contain ':' and '/', so they travel as a parameter. */
  @DeleteMapping
  @ResponseStatus(HttpStatus.NO_CONTENT)
  void remove(@RequestParam("uri") String uri) {
    inbound.remove(uri);
  }
}
