package io.activityservice.perf.peer.camel;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class StructuredCloudEventsTest {

  @Test
  void binaryJmsEventBecomesStructuredJsonWithDataEmbedded() {
    Map<String, Object> h = new LinkedHashMap<>();
    h.put("cloudEvents_specversion", "1.0");
    h.put("cloudEvents_id", "a\"1");
    h.put("cloudEvents_priority", 3);
    h.put("JMSMessageID", "ID:x");
    h.put("contentType", "application/json");
    assertEquals(
        "{\"specversion\":\"1.0\",\"id\":\"a\\\"1\",\"priority\":3,\"datacontenttype\":\"application/json\","
            + "\"data\":{\"value\":1}}",
        StructuredCloudEvents.fromBinary(h, "{\"value\":1}"));
  }

  @Test
  void textDataIsQuoted() {
    Map<String, Object> h = new LinkedHashMap<>();
    h.put("cloudEvents_id", "1");
    h.put("contentType", "text/plain");
    assertEquals(
        "{\"id\":\"1\",\"datacontenttype\":\"text/plain\",\"data\":\"a\\nb\"}",
        StructuredCloudEvents.fromBinary(h, "a\nb"));
  }
}
