package io.activityservice.events.ingest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.activityservice.events.problem.InvalidInputException;
import io.activityservice.events.registry.EventRegistry;
import io.activityservice.events.registry.EventTypeRepository;
import io.activityservice.events.registry.UnregisteredTypePolicy;
import io.activityservice.events.support.TestDatabases;
import io.cloudevents.core.builder.CloudEventBuilder;
import java.net.URI;
import java.time.Clock;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * Issue 19: what one event may be, checked at ingest for every channel (prepare is what every
 * channel calls).
 */
class IngestBoundsTest {

  private final EventIngest ingest =
      new EventIngest(
          new EventRegistry(
              new EventTypeRepository(JdbcClient.create(TestDatabases.newH2())),
              UnregisteredTypePolicy.ACCEPT,
              Clock.systemUTC()),
          null,
          Clock.systemUTC(),
          64);

  private static CloudEventBuilder event() {
    return CloudEventBuilder.v1()
        .withId("1")
        .withSource(URI.create("/s"))
        .withType("com.example.t");
  }

  @Test
  void attributesAndExtensionsAreBoundedNamingTheAttribute() {
    String long65 = "a".repeat(65);
    assertThat(
            ingest
                .prepare(event().withSource(URI.create("/" + "a".repeat(63))).build())
                .json()
                .get("source")
                .asText())
        .hasSize(64);
    for (var c :
        List.of(
            new Object[] {event().withId(long65).build(), "id"},
            new Object[] {event().withSource(URI.create("/" + long65)).build(), "source"},
            new Object[] {event().withType(long65).build(), "type"},
            new Object[] {event().withSubject(long65).build(), "subject"},
            new Object[] {
              event().withDataSchema(URI.create("http://x/" + long65)).build(), "dataschema"
            },
            new Object[] {event().withExtension("myext", long65).build(), "myext"},
            new Object[] {event().withExtension("bin", new byte[65]).build(), "bin"})) {
      assertThatThrownBy(() -> ingest.prepare((io.cloudevents.CloudEvent) c[0]))
          .isInstanceOf(InvalidInputException.class)
          .hasMessageStartingWith(c[1] + ": is ")
          .hasMessageContaining("activity.ingest.max-attribute-length");
    }
  }

  @Test
  void anExtensionCannotShadowAnAttributeInTheRoutedView() {
    for (String name :
        List.of("datacontenttype", "data", "type", "id", "source", "specversion", "time")) {
      assertThatThrownBy(() -> ingest.prepare(event().withExtension(name, "forged").build()))
          .isInstanceOf(InvalidInputException.class)
          .hasMessageStartingWith(name + ": is a CloudEvents attribute name");
    }
    assertThatThrownBy(() -> new EventIngest(null, null, Clock.systemUTC(), 10))
        .hasMessageContaining("activity.ingest.max-attribute-length must be between 64 and 65536");
  }
}
