package io.activityservice.detector;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.activityservice.events.json.Json;
import java.io.InputStream;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Compile once: the replica that creates a detector stores its compiled form, and another replica
 * applying the change starts the detector from it (the same classes) instead of compiling the EPL
 * again — unless the form does not fit (compiled from something else) or a class fails the
 * sandbox's generated-code check, in which case it compiles the EPL. Two replicas: two engines and
 * services on one database.
 */
class CompiledFormTest {

  static final String READING = DetectorEngineTest.READING;
  static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");
  Harness a;
  Harness b;

  @BeforeEach
  void start() throws Exception {
    String db = "mem:compiled-form-" + UUID.randomUUID();
    a = new Harness(db, 8, 10_000);
    a.registerExampleTypes();
    b = new Harness(db, 8, 10_000); // reads the types a registered
  }

  @AfterEach
  void stop() {
    a.close();
    b.close();
  }

  @Test
  void theOtherReplicaStartsTheDetectorFromTheStoredFormAndItDetects() {
    a.service.create(
        "cf", Map.of("R", READING), "select data.meter as meter from R", "com.example.cf", null);
    String form = storedForm("cf");
    assertThat(form)
        .as("stored with the detector")
        .contains("\"classes\"")
        .contains("\"fingerprint\"");

    b.service.reload("cf");

    assertThat(b.service.get("cf").state()).isEqualTo("deployed");
    b.publish("r-1", READING, "/meters/m1", T0, "{\"meter\": \"m1\", \"value\": 1}");
    await().atMost(Duration.ofSeconds(20)).until(() -> b.routedOf("com.example.cf").size() == 1);
    assertThat(Harness.data(b.routedOf("com.example.cf").get(0))).isEqualTo("{\"meter\":\"m1\"}");
  }

  @Test
  void theStoredClassesAreWhatRunsNotARecompile() {
    // Two detectors over the same input; the second's classes are stored as the first's form (its
    // fingerprint
    // kept): if the other replica runs the stored classes, the first detector emits the second
    // one's column.
    a.service.create(
        "one", Map.of("R", READING), "select data.meter as meter from R", "com.example.one", null);
    a.service.create(
        "two", Map.of("R", READING), "select data.meter as other from R", "com.example.one", null);
    ObjectNode one = (ObjectNode) Json.parse(storedForm("one"), "form");
    ObjectNode two = (ObjectNode) Json.parse(storedForm("two"), "form");
    two.put("fingerprint", one.get("fingerprint").asText());
    setStoredForm("one", Json.write(two));

    b.service.reload("one");
    b.publish("r-1", READING, "/meters/m1", T0, "{\"meter\": \"m1\", \"value\": 1}");

    await().atMost(Duration.ofSeconds(20)).until(() -> b.routedOf("com.example.one").size() == 1);
    assertThat(Harness.data(b.routedOf("com.example.one").get(0))).isEqualTo("{\"other\":\"m1\"}");
  }

  @Test
  void aFormCompiledFromSomethingElseIsNotUsed() {
    a.service.create(
        "one", Map.of("R", READING), "select data.meter as meter from R", "com.example.one", null);
    a.service.create(
        "two", Map.of("R", READING), "select data.meter as other from R", "com.example.one", null);
    setStoredForm("one", storedForm("two")); // its own fingerprint: compiled from other EPL

    b.service.reload("one");
    b.publish("r-1", READING, "/meters/m1", T0, "{\"meter\": \"m1\", \"value\": 1}");

    await().atMost(Duration.ofSeconds(20)).until(() -> b.routedOf("com.example.one").size() == 1);
    assertThat(Harness.data(b.routedOf("com.example.one").get(0)))
        .as("compiled from its own EPL")
        .isEqualTo("{\"meter\":\"m1\"}");
  }

  @Test
  void aFormWithAClassTheSandboxRefusesIsNotUsed() throws Exception {
    a.service.create(
        "one", Map.of("R", READING), "select data.meter as meter from R", "com.example.one", null);
    a.service.create(
        "two", Map.of("R", READING), "select data.meter as other from R", "com.example.one", null);
    ObjectNode one = (ObjectNode) Json.parse(storedForm("one"), "form");
    ObjectNode forged = (ObjectNode) Json.parse(storedForm("two"), "form");
    forged.put("fingerprint", one.get("fingerprint").asText());
    // A class that calls Runtime.exec: what the generated-code check exists to keep out.
    try (InputStream in =
        RuntimeCaller.class.getResourceAsStream("CompiledFormTest$RuntimeCaller.class")) {
      ((ObjectNode) forged.get("classes"))
          .put(
              RuntimeCaller.class.getName(), Base64.getEncoder().encodeToString(in.readAllBytes()));
    }
    setStoredForm("one", Json.write(forged));

    b.service.reload("one");
    b.publish("r-1", READING, "/meters/m1", T0, "{\"meter\": \"m1\", \"value\": 1}");

    await().atMost(Duration.ofSeconds(20)).until(() -> b.routedOf("com.example.one").size() == 1);
    assertThat(Harness.data(b.routedOf("com.example.one").get(0)))
        .as("refused, compiled from its own EPL")
        .isEqualTo("{\"meter\":\"m1\"}");
  }

  /** Never run: its class file is the forged class. */
  static final class RuntimeCaller {
    static void run() throws java.io.IOException {
      Runtime.getRuntime().exec(new String[] {"true"});
    }
  }

  private String storedForm(String name) {
    return a.jdbc
        .sql("select compiled_form from detector where name = ?")
        .param(name)
        .query(String.class)
        .single();
  }

  private void setStoredForm(String name, String form) {
    a.jdbc.sql("update detector set compiled_form = ? where name = ?").params(form, name).update();
  }
}
