package io.activityservice.detector;

import com.fasterxml.jackson.databind.JsonNode;
import io.activityservice.events.json.Json;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** The EPL escape attempts of {@code src/test/resources/escape/epl-corpus.json}. */
public final class EscapeCorpus {

  /**
   * One attempt.
   *
   * @param id short name
   * @param description what it tries
   * @param input {@code R} (typed meter readings) or {@code U} (untyped events)
   * @param epl the EPL with placeholders {@code ${DIR}}, {@code ${PROP}} and {@code
   *     ${CANARY_CLASS}}
   * @param refusal what the refusal must say
   * @param effect what would show if it ran: {@code file}, {@code process} (a file in {@code
   *     ${DIR}}), {@code property}, {@code class-init}, {@code exit} (the JVM would stop) or {@code
   *     row} (a derived event would be emitted)
   * @param control whether the raw Esper engine, without the sandbox, runs it with its effect
   */
  public record Attempt(
      String id,
      String description,
      String input,
      String epl,
      String refusal,
      String effect,
      boolean control) {

    /** The EPL with its placeholders replaced. */
    public String epl(Path dir, String property, Class<?> canary) {
      return epl.replace("${DIR}", dir.toAbsolutePath().toString().replace('\\', '/'))
          .replace("${PROP}", property)
          .replace("${CANARY_CLASS}", canary.getName());
    }

    /** Whether the effect is a Java side effect (not only a derived event or the JVM stopping). */
    public boolean javaEffect() {
      return List.of("file", "process", "property", "class-init").contains(effect);
    }

    @Override
    public String toString() {
      return id;
    }
  }

  private EscapeCorpus() {}

  /** All attempts, in file order. */
  public static List<Attempt> load() {
    try (InputStream in = EscapeCorpus.class.getResourceAsStream("/escape/epl-corpus.json")) {
      List<Attempt> out = new ArrayList<>();
      for (JsonNode a : Json.MAPPER.readTree(in).get("attempts")) {
        out.add(
            new Attempt(
                a.get("id").asText(),
                a.get("description").asText(),
                a.get("input").asText(),
                a.get("epl").asText(),
                a.get("refusal").asText(),
                a.get("effect").asText(),
                a.get("control").asBoolean()));
      }
      return out;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The system property an attempt may try to set. */
  public static String property(Attempt a) {
    return "escape.property." + a.id();
  }
}
