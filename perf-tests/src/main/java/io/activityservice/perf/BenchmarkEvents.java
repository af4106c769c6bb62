package io.activityservice.perf;

import io.activityservice.events.json.Json;
import io.cloudevents.CloudEvent;
import io.cloudevents.core.builder.CloudEventBuilder;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.OffsetDateTime;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** A typical meter-reading CloudEvent of about 1 KiB in structured mode. */
final class BenchmarkEvents {

  static final String READING = "com.example.meter.reading";

  private BenchmarkEvents() {}

  static CloudEvent reading(String meter, double value) {
    Map<String, Object> data = new LinkedHashMap<>();
    data.put("meter", meter);
    data.put("value", value);
    data.put("unit", "kWh");
    data.put("site", "site-12/building-B/floor-3");
    data.put("status", "ok");
    data.put("location", Map.of("lat", 52.5200, "lon", 13.4050, "floor", 3, "room", "3.14"));
    data.put(
        "readings",
        List.of(
            Map.of("t", "2026-11-21T17:45:00Z", "v", 1021.5),
            Map.of("t", "2026-11-21T17:50:00Z", "v", 1022.75),
            Map.of("t", "2026-11-21T17:55:00Z", "v", 1024.0)));
    data.put("tags", List.of("residential", "smart-meter", "tariff-b", "grid-north", "phase-3"));
    data.put(
        "firmware",
        Map.of("version", "4.12.7", "vendor", "Example Metering GmbH", "build", "2026-10-01"));
    data.put(
        "notes",
        "Routine interval reading forwarded by the field gateway; no anomalies were detected "
            + "by the on-device checks, and the battery level is within the expected range. The gateway "
            + "buffered this reading for four seconds before forwarding it upstream.");
    data.put("gateway", Map.of("id", "north-7", "link", "lte", "rssi", -71, "bufferedMs", 4000));
    return CloudEventBuilder.v1()
        .withId("0f8a2c7e-6d1b-4f4e-9a57-3b2c1d0e9f8a")
        .withSource(URI.create("/gateways/north-7/meters"))
        .withType(READING)
        .withSubject("north")
        .withTime(OffsetDateTime.parse("2026-11-21T18:00:00Z"))
        .withExtension("partitionkey", meter)
        .withExtension("priority", "5")
        .withData("application/json", Json.write(Json.tree(data)).getBytes(StandardCharsets.UTF_8))
        .build();
  }
}
