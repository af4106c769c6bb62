package io.activityservice.app.rules;

import static io.activityservice.app.rules.RuleTestSupport.event;
import static io.activityservice.app.rules.RuleTestSupport.example;
import static io.activityservice.app.rules.RuleTestSupport.rule;
import static io.activityservice.app.support.Events.reading;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.activityservice.app.support.Api;
import io.activityservice.app.support.Api.Response;
import io.activityservice.app.support.WebhookReceiver;
import io.activityservice.channel.ChannelUri;
import io.activityservice.channel.InboundChannel;
import io.activityservice.channel.InboundSettings;
import io.activityservice.events.channel.ChannelRegistry;
import io.cloudevents.CloudEvent;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;

/**
 * Rules over real HTTP: the "Done when", the examples end to end (webhooks to a real local
 * receiver, an order reaching a JMS queue subscriber), retries and the executions list.
 */
@SpringBootTest(
    webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
    properties = {
      "activity.rules.webhook.initial-backoff=50ms",
      "activity.rules.webhook.max-backoff=200ms",
      "activity.rules.webhook.max-attempts=3"
    })
class RulesApiTest {

  static final WebhookReceiver webhook = new WebhookReceiver();
  static final String VERBATIM =
      """
      rule "high reading"
      when
        $e : Event( type == "com.example.meter.reading", number("value") > 90 )
      then
        actions.run("webhook", Map.of("url", "http://127.0.0.1:9999/hook", "event", $e));
      end
      """;

  @LocalServerPort int port;
  @Autowired ChannelRegistry channels;
  Api api;
  final List<String> created = new ArrayList<>();

  @BeforeEach
  void client() {
    api = new Api(port);
  }

  @AfterEach
  void deleteRules() {
    created.forEach(name -> api.delete("/api/v1/rules/" + name));
  }

  @AfterAll
  static void stopWebhook() {
    webhook.close();
  }

  private String create(String prefix, String drl) {
    String name = prefix + "-" + UUID.randomUUID().toString().substring(0, 8);
    Response r = api.postJson("/api/v1/rules", rule(name, drl));
    assertThat(r.status()).as(r.body()).isEqualTo(201);
    created.add(name);
    return name;
  }

  private static String unique(String prefix) {
    return prefix + "-" + UUID.randomUUID().toString().substring(0, 8);
  }

  @Test
  void doneWhen_verbatimRuleFiresOnce_syntaxErrorIs400WithLine_oldRuleKeepsWorking() {
    String path = "/" + unique("hook");
    String drl = VERBATIM.replace("http://127.0.0.1:9999/hook", webhook.url(path));
    String name = create("high-reading", drl);

    String high = unique("r95");
    assertThat(api.publish(reading(high, "m1", 95)).status()).isEqualTo(202);
    assertThat(api.publish(reading(unique("r50"), "m1", 50)).status()).isEqualTo(202);
    await().atMost(Duration.ofSeconds(10)).until(() -> webhook.calls(path).size() == 1);
    // A marker that fires too: the 50 reading, published before it, did not.
    String marker = unique("r99");
    api.publish(reading(marker, "m1", 99));
    await().atMost(Duration.ofSeconds(10)).until(() -> webhook.calls(path).size() == 2);
    WebhookReceiver.Call first = webhook.calls(path).get(0);
    assertThat(first.contentType()).startsWith("application/cloudevents+json");
    assertThat(first.body()).contains("\"id\":\"" + high + "\"").contains("\"value\":95");
    assertThat(webhook.calls(path).get(1).body()).contains(marker);

    Response bad =
        api.put(
            "/api/v1/rules/" + name,
            rule(
                name,
                """
        rule "high reading"
        when
          $e : Event( type == "com.example.meter.reading", number("value") > 90
        then
        end
        """));
    assertThat(bad.status()).isEqualTo(400);
    assertThat(bad.contentType()).startsWith("application/problem+json");
    assertThat(bad.json().get("field").asText()).isEqualTo("drl");
    assertThat(bad.json().get("detail").asText()).startsWith("drl: line 4: ").contains("then");
    assertThat(bad.json().get("errors").get(0).get("reason").asText()).startsWith("line 4: ");
    assertThat(api.get("/api/v1/rules/" + name).json().get("version").asLong()).isEqualTo(1);

    String again = unique("r97");
    assertThat(api.publish(reading(again, "m1", 97)).status()).isEqualTo(202);
    await().atMost(Duration.ofSeconds(10)).until(() -> webhook.calls(path).size() == 3);
    assertThat(webhook.calls(path).get(2).body()).contains(again);
  }

  @Test
  void crudContract() {
    String name = create("crud", "rule \"r\" when Event(type == \"com.example.crud\") then end");
    assertThat(
            api.postJson("/api/v1/rules", rule(name, "rule \"r\" when Event() then end")).status())
        .isEqualTo(409);
    JsonNode got = api.get("/api/v1/rules/" + name).json();
    assertThat(got.get("types").toString()).isEqualTo("[\"com.example.crud\"]");
    assertThat(got.get("deployed").asBoolean()).isTrue();
    Response put =
        api.put("/api/v1/rules/" + name, "{\"drl\": \"rule \\\"r\\\" when Event() then end\"}");
    assertThat(put.status()).isEqualTo(200);
    assertThat(put.json().get("version").asLong()).isEqualTo(2);
    assertThat(put.json().get("types").toString()).isEqualTo("[\"*\"]");
    assertThat(api.get("/api/v1/rules").json().findValuesAsText("name")).contains(name);
    assertThat(
            api.postJson("/api/v1/rules", rule("bad name!", "rule \"r\" when then end")).status())
        .isEqualTo(400);
    assertThat(api.get("/api/v1/rules/" + name + "/executions").json().isArray()).isTrue();
    assertThat(api.delete("/api/v1/rules/" + name).status()).isEqualTo(204);
    assertThat(api.get("/api/v1/rules/" + name).status()).isEqualTo(404);
    assertThat(api.get("/api/v1/rules/" + name + "/executions").status()).isEqualTo(404);
  }

  @Test
  void smartGrid_overloadShedsLoad_failingWebhookIsRetriedAndRecorded() {
    String base = webhook.url("/" + unique("grid"));
    String name = create("shed-load", example("smart-grid-overload.drl", base));
    String path = base.substring(base.lastIndexOf('/')) + "/grid/shed";

    webhook.failNext(2); // two 503s, then success on attempt 3
    String first = unique("overload");
    api.publish(
        event(
            first,
            "com.example.meter.overload",
            OffsetDateTime.now(),
            "{\"feeder\": \"f7\", \"load\": 130, \"capacity\": 100}"));
    await().atMost(Duration.ofSeconds(10)).until(() -> webhook.calls(path).size() == 1);
    assertThat(webhook.calls(path).get(0).body())
        .contains("\"command\":\"shed\"")
        .contains("\"feeder\":\"f7\"")
        .contains(first);

    webhook.failNext(10); // more 503s than attempts: the action fails
    String second = unique("overload");
    api.publish(
        event(
            second,
            "com.example.meter.overload",
            OffsetDateTime.now(),
            "{\"feeder\": \"f8\", \"load\": 140, \"capacity\": 100}"));
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> api.get("/api/v1/rules/" + name + "/executions").json().size() == 2);
    webhook.failNext(0);

    JsonNode executions = api.get("/api/v1/rules/" + name + "/executions").json();
    JsonNode failed = executions.get(0); // newest first
    assertThat(failed.get("eventId").asText()).isEqualTo(second);
    assertThat(failed.get("handler").asText()).isEqualTo("webhook");
    assertThat(failed.get("outcome").asText()).isEqualTo("failed");
    assertThat(failed.get("attempts").asInt()).isEqualTo(3);
    assertThat(failed.get("error").asText()).contains("HTTP 503");
    assertThat(failed.get("firedRule").asText()).isEqualTo("shed load on overload");
    JsonNode retried = executions.get(1);
    assertThat(retried.get("eventId").asText()).isEqualTo(first);
    assertThat(retried.get("outcome").asText()).isEqualTo("succeeded");
    assertThat(retried.get("attempts").asInt()).isEqualTo(3);
    assertThat(retried.get("durationMs").asLong()).isGreaterThanOrEqualTo(100);
    assertThat(retried.get("time").asText()).isNotBlank();
  }

  @Test
  void inventory_lowStockPublishesAnOrderThatReachesAJmsQueueSubscriber() throws Exception {
    ChannelUri queue = ChannelUri.parse("jms:queue:" + unique("orders"));
    List<CloudEvent> orders = new CopyOnWriteArrayList<>();
    InboundChannel consumer =
        channels
            .adapter(queue)
            .openInbound(
                queue,
                new InboundSettings(null, null, Map.of()),
                (event, ack) -> {
                  orders.add(event);
                  ack.ack();
                });
    try {
      assertThat(
              api.postJson(
                      "/api/v1/subscriptions",
                      """
          {"name": "orders", "pattern": {"type": ["com.example.inventory.order"]}, "target": "%s"}"""
                          .formatted(queue))
                  .status())
          .isEqualTo(201);
      create("reorder", example("inventory-reorder.drl", "unused"));
      String store = unique("store");
      String low = unique("stock");
      api.publish(
          event(
              low,
              "com.example.inventory.stocklevel",
              OffsetDateTime.now(),
              "{\"store\": \"%s\", \"sku\": \"sku-42\", \"quantity\": 3, \"reorderLevel\": 10}"
                  .formatted(store)));
      api.publish(
          event(
              unique("stock"),
              "com.example.inventory.stocklevel",
              OffsetDateTime.now(),
              "{\"store\": \"%s\", \"sku\": \"sku-43\", \"quantity\": 50, \"reorderLevel\": 10}"
                  .formatted(store)));

      await()
          .atMost(Duration.ofSeconds(15))
          .until(
              () ->
                  orders.stream()
                      .anyMatch(o -> o.getSource().toString().equals("/stores/" + store)));
      // ... and no second order arrives: the well-stocked sku-43 orders nothing.
      await()
          .during(Duration.ofMillis(500))
          .atMost(Duration.ofSeconds(5))
          .until(
              () ->
                  orders.stream()
                          .filter(o -> o.getSource().toString().equals("/stores/" + store))
                          .count()
                      == 1);
      List<CloudEvent> mine =
          orders.stream().filter(o -> o.getSource().toString().equals("/stores/" + store)).toList();
      assertThat(mine).hasSize(1);
      CloudEvent order = mine.get(0);
      assertThat(order.getType()).isEqualTo("com.example.inventory.order");
      assertThat(order.getSubject()).isEqualTo("sku-42");
      assertThat(String.valueOf(order.getExtension("hopcount"))).isEqualTo("1");
      assertThat(new String(order.getData().toBytes(), StandardCharsets.UTF_8))
          .contains("\"sku\":\"sku-42\"")
          .contains("\"quantity\":100")
          .contains(low);
    } finally {
      consumer.close();
    }
  }

  @Test
  void failedLogins_moreThanThreeWithinTenSecondsAlertOnce() {
    String base = webhook.url("/" + unique("sec"));
    create("brute-force", example("failed-logins.drl", base));
    String path = base.substring(base.lastIndexOf('/')) + "/security/alerts";
    String alice = unique("alice");
    String bob = unique("bob");
    OffsetDateTime t0 = OffsetDateTime.now();
    String type = "com.example.auth.login.failed";
    for (int i = 0; i < 4; i++) { // 4 failures within 3 s -> alert
      api.publish(event(alice + "-" + i, type, t0.plusSeconds(i), "{\"user\": \"" + alice + "\"}"));
    }
    for (int i = 0; i < 4; i++) { // 4 failures 11 s apart -> nothing
      api.publish(
          event(bob + "-" + i, type, t0.plusSeconds(4 + 11L * i), "{\"user\": \"" + bob + "\"}"));
    }
    await().atMost(Duration.ofSeconds(10)).until(() -> webhook.calls(path).size() == 1);
    api.publish(event(unique("marker"), type, t0.plusSeconds(60), "{\"user\": \"" + alice + "\"}"));
    await().pollDelay(Duration.ofMillis(500)).atMost(Duration.ofSeconds(5)).until(() -> true);
    assertThat(webhook.calls(path)).hasSize(1);
    assertThat(webhook.calls(path).get(0).body())
        .contains("\"user\":\"" + alice + "\"")
        .contains("\"failures\":4")
        .contains(alice + "-3");
  }
}
