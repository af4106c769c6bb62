package io.activityservice.channel;

import java.util.Map;

/**
 * What an adapter would put on the wire for one event, without sending it: the transport's headers
 * or properties and the body, byte for byte. Used by the pattern tester to show a subscription's
 * delivery.
 *
 * @param headers header, property or attribute names and their values as sent
 * @param body the body (message body, record value, request body)
 */
public record WirePreview(Map<String, String> headers, byte[] body) {

  public WirePreview {
    headers = Map.copyOf(headers);
    body = body == null ? new byte[0] : body;
  }

  /**
   * Structured JSON with its content type: what adapters that send structured bodies send (the
   * default of {@link ChannelAdapter#preview}).
   */
  public static WirePreview structured(OutboundEvent event) {
    return new WirePreview(
        Map.of("content-type", CloudEventJson.CONTENT_TYPE),
        event.encoded(CloudEventJson.STRUCTURED));
  }
}
