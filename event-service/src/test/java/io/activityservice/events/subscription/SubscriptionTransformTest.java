package io.activityservice.events.subscription;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import io.activityservice.channel.DeliveryFormat;
import io.activityservice.events.channel.ChannelRegistry;
import io.activityservice.events.problem.InvalidInputException;
import io.activityservice.events.support.FakeChannelAdapter;
import io.activityservice.events.support.TestDatabases;
import io.activityservice.events.transform.Transform;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import javax.sql.DataSource;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.jdbc.core.simple.JdbcClient;

/** Transformations and delivery formats on subscriptions: checked at create, stored, reloaded. */
class SubscriptionTransformTest {

  private DataSource ds;
  private SubscriptionRepository repository;
  private SubscriptionIndex index;
  private SubscriptionService service;

  @BeforeEach
  void setUp() {
    ds = TestDatabases.newH2();
    repository = new SubscriptionRepository(JdbcClient.create(ds));
    index = new SubscriptionIndex();
    service =
        new SubscriptionService(
            repository,
            index,
            new ChannelRegistry(List.of(new FakeChannelAdapter("fake"))),
            Clock.systemUTC());
  }

  private Subscription create(Transform transform, DeliveryFormat format) {
    return service
        .create(
            "s",
            null,
            null,
            "fake:t",
            null,
            null,
            null,
            new DeliveryOptions(null, transform, format, null))
        .subscription();
  }

  @Test
  void aTransformAndFormatAreStoredCompiledAndReloaded() {
    Transform t = new Transform("{'ref': data.id}", Map.of("type", "'partner.v1'"));
    Subscription s = create(t, DeliveryFormat.STRUCTURED);

    assertThat(index.get(s.id()).transform()).isNotNull();
    assertThat(index.get(s.id()).format()).isEqualTo(DeliveryFormat.STRUCTURED);
    Subscription stored = repository.find(s.id()).orElseThrow();
    assertThat(stored.transform()).isEqualTo(t);
    assertThat(stored.format()).isEqualTo(DeliveryFormat.STRUCTURED);

    SubscriptionIndex fresh = new SubscriptionIndex();
    new SubscriptionService(
            repository,
            fresh,
            new ChannelRegistry(List.of(new FakeChannelAdapter("fake"))),
            Clock.systemUTC())
        .loadAll();
    assertThat(fresh.get(s.id()).transform().source()).isEqualTo(t);
  }

  @Test
  void withoutTransformNothingIsCompiled() {
    Subscription s = create(new Transform(null, Map.of()), null);
    assertThat(s.transform()).isNull();
    assertThat(index.get(s.id()).transform()).isNull();
    assertThat(repository.find(s.id()).orElseThrow().transform()).isNull();
  }

  @Test
  void aSyntaxErrorIsRefusedNamingTheFieldAndPositionAndNothingIsStored() {
    InvalidInputException e =
        catchThrowableOfType(
            InvalidInputException.class,
            () -> create(new Transform(null, Map.of("subject", "data.(")), null));
    assertThat(e.errors().get(0).field()).isEqualTo("transform.attributes.subject");
    assertThat(e.errors().get(0).reason()).contains("position");
    assertThat(repository.findAll()).isEmpty();
    assertThat(index.size()).isZero();
  }

  @Test
  void aFormatTheTargetCannotSendIsRefused() {
    // The fake adapter offers structured JSON only (the SPI's default).
    InvalidInputException e =
        catchThrowableOfType(
            InvalidInputException.class, () -> create(null, DeliveryFormat.BINARY));
    assertThat(e.errors().get(0).field()).isEqualTo("format");
    assertThat(e.errors().get(0).reason()).contains("structured");
    assertThat(repository.findAll()).isEmpty();
  }
}
