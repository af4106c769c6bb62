package io.activityservice.events.transform;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import io.activityservice.events.json.Json;
import io.activityservice.events.registry.EventRegistry;
import io.activityservice.events.registry.EventTypeRepository;
import io.activityservice.events.registry.UnregisteredTypePolicy;
import io.activityservice.events.support.Events;
import io.activityservice.events.support.TestDatabases;
import io.cloudevents.CloudEvent;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.jdbc.core.simple.JdbcClient;

/** A transformation's output checked against the registered schema of the type it produces. */
class OutputCheckTest {

  private EventRegistry registry;

  @BeforeEach
  void setUp() {
    registry =
        new EventRegistry(
            new EventTypeRepository(JdbcClient.create(TestDatabases.newH2())),
            UnregisteredTypePolicy.ACCEPT,
            Clock.systemUTC());
    registry.create(
        "partner.order.v1",
        "what the partner accepts",
        "test",
        Json.parse(
            """
            {"type": "object", "required": ["ref", "amount"],
             "properties": {"ref": {"type": "string"}, "amount": {"type": "number"}}}""",
            "schema"));
  }

  private CompiledTransform toPartner(String data) {
    return CompiledTransform.compile(
        new Transform(data, Map.of("type", "'partner.order.v1'")),
        TransformLimits.DEFAULT,
        OutputCheck.againstSchemas(registry));
  }

  @Test
  void outputValidUnderTheTypesSchemaIsDelivered() {
    CloudEvent out =
        toPartner("{'ref': data.orderId, 'amount': data.total}")
            .apply(Events.routable("shop.order", Map.of("orderId", "o-1", "total", 3)));
    assertThat(new String(out.getData().toBytes(), StandardCharsets.UTF_8))
        .isEqualTo("{\"ref\":\"o-1\",\"amount\":3}");
  }

  @Test
  void outputInvalidUnderTheTypesSchemaIsRefusedWithTheSchemasReason() {
    TransformException e =
        catchThrowableOfType(
            TransformException.class,
            () ->
                toPartner("{'ref': data.orderId}")
                    .apply(Events.routable("shop.order", Map.of("orderId", "o-1", "total", 3))));
    assertThat(e.getMessage()).contains("partner.order.v1").contains("amount");
  }

  @Test
  void unregisteredOutputTypesAreNotChecked() {
    CloudEvent out =
        CompiledTransform.compile(
                new Transform("{'x': 1}", Map.of("type", "'elsewhere.v1'")),
                TransformLimits.DEFAULT,
                OutputCheck.againstSchemas(registry))
            .apply(Events.routable("shop.order", Map.of("orderId", "o-1")));
    assertThat(out.getType()).isEqualTo("elsewhere.v1");
  }
}
