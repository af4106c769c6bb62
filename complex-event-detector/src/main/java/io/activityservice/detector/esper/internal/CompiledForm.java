package io.activityservice.detector.esper.internal;

import com.espertech.esper.common.client.EPCompiled;
import com.espertech.esper.common.client.EPCompiledManifest;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.activityservice.events.json.Json;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Base64;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A detector's compiled EPL as text, stored with the detector so that the other replicas start it
 * without compiling again (an Esper compile takes seconds on a loaded machine; loading the classes,
 * milliseconds): Esper's {@link EPCompiled} — its generated class files and manifest — in JSON, not
 * Java serialisation (nothing but bytes and names is read back). The form carries a fingerprint of
 * what it was compiled from (the EPL, the clock and the input types' property types): a replica
 * uses it only for the same fingerprint, and only after the {@link EplSandbox#checkCompiled
 * generated-code check} passes on every class, as after its own compile.
 */
public final class CompiledForm {

  private static final int FORMAT = 1;

  private CompiledForm() {}

  /**
   * What a detector is compiled from, as a digest: the EPL, the clock and its inputs' aliases and
   * property types.
   *
   * @param inputs alias to the input type's property definition (as given to Esper)
   */
  public static String fingerprint(
      String epl, String clock, Map<String, ? extends Map<String, ?>> inputs) {
    StringBuilder s =
        new StringBuilder().append(FORMAT).append('\n').append(epl).append('\n').append(clock);
    inputs.forEach(
        (alias, properties) ->
            s.append('\n').append(alias).append('=').append(describe(properties)));
    try {
      byte[] digest =
          MessageDigest.getInstance("SHA-256")
              .digest(s.toString().getBytes(StandardCharsets.UTF_8));
      return HexFormat.of().formatHex(digest);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  /** Property types by name, in name order; classes by name, nested maps likewise. */
  private static String describe(Map<String, ?> properties) {
    StringBuilder s = new StringBuilder("{");
    new java.util.TreeMap<>(properties)
        .forEach(
            (name, type) ->
                s.append(name)
                    .append(':')
                    .append(
                        type instanceof Class<?> c
                            ? c.getName()
                            : type instanceof Map<?, ?> m
                                ? describe(cast(m))
                                : String.valueOf(type))
                    .append(','));
    return s.append('}').toString();
  }

  @SuppressWarnings("unchecked")
  private static Map<String, ?> cast(Map<?, ?> m) {
    return (Map<String, ?>) m;
  }

  /** The form of {@code compiled}, compiled from what {@code fingerprint} describes. */
  public static String encode(EPCompiled compiled, String fingerprint) {
    ObjectNode form = Json.MAPPER.createObjectNode();
    form.put("format", FORMAT);
    form.put("fingerprint", fingerprint);
    EPCompiledManifest m = compiled.getManifest();
    form.put("compilerVersion", m.getCompilerVersion());
    form.put("moduleProvider", m.getModuleProviderClassName());
    form.put("queryProvider", m.getQueryProviderClassName());
    form.put("targetHA", m.isTargetHA());
    ObjectNode classes = form.putObject("classes");
    Base64.Encoder b64 = Base64.getEncoder();
    new java.util.TreeMap<>(compiled.getClasses())
        .forEach((name, bytes) -> classes.put(name, b64.encodeToString(bytes)));
    return Json.write(form);
  }

  /**
   * The compiled EPL in {@code form} if it was compiled from what {@code fingerprint} describes and
   * every class passes the sandbox's generated-code check.
   *
   * @throws IllegalArgumentException saying why the form cannot be used (the caller compiles
   *     instead)
   */
  public static EPCompiled decode(String form, String fingerprint, EplSandbox sandbox) {
    JsonNode f;
    try {
      f = Json.parse(form, "compiled_form");
    } catch (RuntimeException e) {
      throw new IllegalArgumentException("the compiled form is not JSON");
    }
    if (f.path("format").asInt() != FORMAT) {
      throw new IllegalArgumentException(
          "the compiled form has format " + f.path("format") + ", not " + FORMAT);
    }
    if (!fingerprint.equals(f.path("fingerprint").asText())) {
      throw new IllegalArgumentException(
          "the compiled form was compiled from other input types or EPL");
    }
    Map<String, byte[]> classes = new LinkedHashMap<>();
    Base64.Decoder b64 = Base64.getDecoder();
    f.path("classes")
        .properties()
        .forEach(e -> classes.put(e.getKey(), b64.decode(e.getValue().asText())));
    if (classes.isEmpty() || !f.path("moduleProvider").isTextual()) {
      throw new IllegalArgumentException("the compiled form has no classes");
    }
    try {
      sandbox.checkCompiled(classes);
    } catch (IllegalStateException e) {
      throw new IllegalArgumentException(e.getMessage());
    }
    String query = f.path("queryProvider").isTextual() ? f.path("queryProvider").asText() : null;
    return new EPCompiled(
        classes,
        new EPCompiledManifest(
            f.path("compilerVersion").asText(),
            f.path("moduleProvider").asText(),
            query,
            f.path("targetHA").asBoolean()));
  }
}
