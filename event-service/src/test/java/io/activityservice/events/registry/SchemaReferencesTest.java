package io.activityservice.events.registry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import com.sun.net.httpserver.HttpServer;
import io.activityservice.events.json.Json;
import io.activityservice.events.problem.InvalidInputException;
import io.activityservice.events.support.TestDatabases;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * Issue 19: event-type schemas fetch nothing. A canary HTTP server on loopback answers every
 * request with a valid schema (so a fetch would succeed) and counts them; a slow one would hold the
 * thread for 30 s.
 */
class SchemaReferencesTest {

  private HttpServer canary;
  private HttpServer slow;
  private final AtomicInteger requests = new AtomicInteger();
  private EventRegistry registry;
  private String base;
  private String slowBase;

  @TempDir Path dir;

  @BeforeEach
  void setUp() throws Exception {
    canary = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    canary.createContext(
        "/",
        exchange -> {
          requests.incrementAndGet();
          byte[] body = "{\"type\": \"string\"}".getBytes(StandardCharsets.UTF_8);
          exchange.sendResponseHeaders(200, body.length);
          exchange.getResponseBody().write(body);
          exchange.close();
        });
    canary.start();
    slow = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    slow.createContext(
        "/",
        exchange -> {
          requests.incrementAndGet();
          try {
            Thread.sleep(30_000);
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
          exchange.close();
        });
    slow.start();
    base = "http://127.0.0.1:" + canary.getAddress().getPort();
    slowBase = "http://127.0.0.1:" + slow.getAddress().getPort();
    registry =
        new EventRegistry(
            new EventTypeRepository(JdbcClient.create(TestDatabases.newH2())),
            UnregisteredTypePolicy.ACCEPT,
            Clock.systemUTC());
  }

  @AfterEach
  void tearDown() {
    canary.stop(0);
    slow.stop(0);
  }

  private InvalidInputException refused(String schema) {
    return catchThrowableOfType(
        InvalidInputException.class,
        () ->
            registry.create(
                "com.example.t" + System.nanoTime(), null, null, Json.parse(schema, "schema")));
  }

  @Test
  void referencesOutsideTheSchemaAre400NamingTheKeywordAndNothingIsFetched() throws Exception {
    Path secret = Files.writeString(dir.resolve("secret.json"), "{\"type\": \"string\"}");
    String[][] cases = {
      {"{\"$ref\": \"" + base + "/a.json\"}", "schema/$ref"},
      {
        "{\"properties\": {\"a\": {\"$ref\": \"" + base + "/a.json#/x\"}}}",
        "schema/properties/a/$ref"
      },
      {"{\"$schema\": \"" + base + "/meta\"}", "schema/$schema"},
      {
        "{\"$id\": \""
            + base
            + "/root.json\", \"properties\": {\"a\": {\"$ref\": \"other.json\"}}}",
        "schema/properties/a/$ref"
      },
      {"{\"$dynamicRef\": \"" + base + "/d.json#meta\"}", "schema/$dynamicRef"},
      {"{\"$ref\": \"http://[::1]:" + canary.getAddress().getPort() + "/v6.json\"}", "schema/$ref"},
      {"{\"$ref\": \"http://169.254.169.254/latest/meta-data\"}", "schema/$ref"},
      {"{\"$ref\": \"classpath:application.yml\"}", "schema/$ref"},
      {"{\"$ref\": \"classpath:draft/2020-12/schema\"}", "schema/$ref"},
      {"{\"$ref\": \"https://json-schema.org/application.yml\"}", "schema/$ref"},
      {"{\"$ref\": \"" + secret.toUri() + "\"}", "schema/$ref"},
      {"{\"$ref\": \"relative.json\"}", "schema/$ref"},
      {"{\"$defs\": {\"x~y/z\": {\"$ref\": \"" + base + "\"}}}", "schema/$defs/x~0y~1z/$ref"},
      {"{\"prefixItems\": [{\"$ref\": \"" + base + "/i\"}]}", "schema/prefixItems/0/$ref"},
      {"{\"$ref\": \"" + slowBase + "/slow.json\"}", "schema/$ref"}
    };
    long start = System.nanoTime();
    for (String[] c : cases) {
      InvalidInputException e = refused(c[0]);
      assertThat(e).as(c[0]).isNotNull();
      assertThat(e.errors().get(0).field()).as(c[0]).isEqualTo(c[1]);
    }
    assertThat((System.nanoTime() - start) / 1_000_000)
        .as("the slow server held nothing")
        .isLessThan(10_000);
    assertThat(requests).as("requests that reached the canary servers").hasValue(0);
    assertThat(registry.list(null)).isEmpty();
  }

  @Test
  void referencesIntoTheSchemaAndBundledMetaSchemasWork() {
    for (String ok :
        new String[] {
          "{\"$defs\": {\"m\": {\"type\": \"string\"}}, \"properties\": {\"meter\": {\"$ref\": \"#/$defs/m\"}}}",
          "{\"$schema\": \"https://json-schema.org/draft/2020-12/schema\", \"type\": \"object\"}",
          "{\"$schema\": \"http://json-schema.org/draft-07/schema#\", \"type\": \"object\"}",
          "{\"$id\": \"https://example.com/reading.json\", \"$defs\": {\"m\": {\"$id\": \"meter.json\","
              + " \"type\": \"string\"}}, \"properties\": {\"meter\": {\"$ref\": \"meter.json\"}}}",
          "{\"properties\": {\"$ref\": {\"type\": \"string\"}}, \"const\": {\"$ref\": \"http://x\"}}",
          "{\"$dynamicAnchor\": \"node\", \"properties\": {\"next\": {\"$dynamicRef\": \"#node\"}}}"
        }) {
      assertThatCode(
              () ->
                  registry.create(
                      "com.example.ok" + System.nanoTime(), null, null, Json.parse(ok, "s")))
          .as(ok)
          .doesNotThrowAnyException();
    }
    registry.create(
        "com.example.meter",
        null,
        null,
        Json.parse(
            "{\"$defs\": {\"m\": {\"type\": \"string\"}},"
                + " \"properties\": {\"meter\": {\"$ref\": \"#/$defs/m\"}}}",
            "s"));
    InvalidInputException e =
        catchThrowableOfType(
            InvalidInputException.class,
            () -> registry.validate("com.example.meter", Json.parse("{\"meter\": 1}", "d"), true));
    assertThat(e.errors().get(0).field()).isEqualTo("data.meter");
    assertThat(requests).hasValue(0);
  }

  @Test
  void theLoaderRefusesEveryAddressButTheBundledMetaSchemas() {
    for (String iri :
        new String[] {
          base + "/x",
          "file:///etc/passwd",
          "classpath:application.yml",
          "classpath:draft/../application.yml",
          "jar:file:/x.jar!/y"
        }) {
      assertThat(
              catchThrowableOfType(
                  RuntimeException.class,
                  () ->
                      SchemaReferences.LOADER.getSchema(com.networknt.schema.AbsoluteIri.of(iri))))
          .as(iri)
          .isNotNull();
    }
    assertThat(
            SchemaReferences.LOADER.getSchema(
                com.networknt.schema.AbsoluteIri.of("classpath:draft/2020-12/schema")))
        .isNotNull();
    assertThat(requests).hasValue(0);
  }
}
