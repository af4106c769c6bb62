package io.activityservice.events.registry;

import com.fasterxml.jackson.databind.JsonNode;
import com.networknt.schema.AbsoluteIri;
import com.networknt.schema.InvalidSchemaException;
import com.networknt.schema.ValidationMessage;
import com.networknt.schema.resource.InputStreamSource;
import com.networknt.schema.resource.SchemaLoader;
import io.activityservice.events.problem.InvalidInputException;
import java.io.FileNotFoundException;
import java.io.InputStream;
import java.net.URI;
import java.net.URISyntaxException;
import java.util.HashSet;
import java.util.Iterator;
import java.util.Map;
import java.util.Set;

/**
 * Event-type schemas fetch nothing. Two parts, both allow-lists:
 *
 * <ul>
 *   <li>{@link #check}: when a type is written, every reference keyword ({@code $ref}, {@code
 *       $dynamicRef}, {@code $recursiveRef}) must resolve — against the {@code $id}s in scope, as
 *       the validator resolves it — into this schema document itself (a fragment, or an {@code $id}
 *       the document declares) or to a bundled meta-schema, and {@code $schema} must name a bundled
 *       meta-schema. Anything else (a network, {@code file:}, {@code classpath:} or relative URL)
 *       is a 400 naming the field as {@code schema} plus the JSON pointer of the keyword, e.g.
 *       {@code schema/properties/a/$ref}.
 *   <li>{@link #LOADER}: the validator's only schema loader. It serves the meta-schemas bundled in
 *       the validator's jar (by their exact resource names) and refuses every other address, so
 *       nothing is fetched at validation time either, whatever a schema holds (the validator's own
 *       class-path and URL loaders are never reached).
 * </ul>
 */
public final class SchemaReferences {

  /**
   * The base a schema without {@code $id} resolves relative references against: nothing can be
   * loaded from it.
   */
  static final String DOCUMENT_BASE = "https://registry.invalid/event-type-schema.json";

  /** The meta-schema resources bundled in json-schema-validator's jar. */
  private static final Set<String> BUNDLED =
      Set.of(
          "draft/2020-12/schema",
          "draft/2020-12/meta/core",
          "draft/2020-12/meta/applicator",
          "draft/2020-12/meta/unevaluated",
          "draft/2020-12/meta/validation",
          "draft/2020-12/meta/meta-data",
          "draft/2020-12/meta/format-annotation",
          "draft/2020-12/meta/content",
          "draft/2019-09/schema",
          "draft/2019-09/meta/core",
          "draft/2019-09/meta/applicator",
          "draft/2019-09/meta/validation",
          "draft/2019-09/meta/meta-data",
          "draft/2019-09/meta/format",
          "draft/2019-09/meta/content",
          "draft-07/schema",
          "draft-06/schema",
          "draft-04/schema");

  /** The meta-schemas' public IRIs, as schemas name them. */
  private static final Set<String> BUNDLED_IRIS;

  static {
    Set<String> iris = new HashSet<>();
    for (String name : BUNDLED) {
      iris.add("https://json-schema.org/" + name);
      iris.add("http://json-schema.org/" + name);
    }
    BUNDLED_IRIS = Set.copyOf(iris);
  }

  /** Keywords whose values are data, not schemas: never looked into. */
  private static final Set<String> DATA_KEYWORDS = Set.of("const", "enum", "default", "examples");

  private static final Set<String> REFERENCES = Set.of("$ref", "$dynamicRef", "$recursiveRef");

  /** The loader: bundled meta-schemas only; every other address is refused. */
  public static final SchemaLoader LOADER = new BundledOnly();

  private SchemaReferences() {}

  /**
   * Checks every reference in a schema document.
   *
   * @throws InvalidInputException naming {@code schema/<pointer to the keyword>}
   */
  public static void check(JsonNode schema) {
    Set<String> declared = new HashSet<>();
    declared.add(DOCUMENT_BASE);
    collectIds(schema, DOCUMENT_BASE, "", declared);
    checkNode(schema, DOCUMENT_BASE, "", declared);
  }

  private static void collectIds(JsonNode node, String base, String pointer, Set<String> declared) {
    if (!node.isObject()) {
      if (node.isArray()) {
        int i = 0;
        for (JsonNode child : node) {
          collectIds(child, base, pointer + "/" + i++, declared);
        }
      }
      return;
    }
    String here = base;
    JsonNode id = node.get("$id");
    if (id != null && id.isTextual()) {
      here = withoutFragment(resolve(base, id.asText(), pointer + "/$id"));
      declared.add(here);
    }
    for (Iterator<Map.Entry<String, JsonNode>> it = node.properties().iterator(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> e = it.next();
      if (!DATA_KEYWORDS.contains(e.getKey())) {
        collectIds(e.getValue(), here, pointer + "/" + escape(e.getKey()), declared);
      }
    }
  }

  private static void checkNode(JsonNode node, String base, String pointer, Set<String> declared) {
    if (node.isArray()) {
      int i = 0;
      for (JsonNode child : node) {
        checkNode(child, base, pointer + "/" + i++, declared);
      }
      return;
    }
    if (!node.isObject()) {
      return;
    }
    String here = base;
    JsonNode id = node.get("$id");
    if (id != null && id.isTextual()) {
      here = withoutFragment(resolve(base, id.asText(), pointer + "/$id"));
    }
    JsonNode dialect = node.get("$schema");
    if (dialect != null
        && dialect.isTextual()
        && !BUNDLED_IRIS.contains(withoutFragment(dialect.asText()))) {
      throw new InvalidInputException(
          "schema" + pointer + "/$schema",
          "names the dialect "
              + dialect.asText()
              + ", which the registry does not bundle; the registry fetches nothing: omit $schema (2020-12) or use"
              + " https://json-schema.org/draft/2020-12/schema, 2019-09, or http://json-schema.org/draft-07/schema#"
              + " (also draft-06, draft-04)");
    }
    for (Iterator<Map.Entry<String, JsonNode>> it = node.properties().iterator(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> e = it.next();
      String key = e.getKey();
      String at = pointer + "/" + escape(key);
      if (DATA_KEYWORDS.contains(key)) {
        continue;
      }
      if (REFERENCES.contains(key) && e.getValue().isTextual()) {
        String ref = e.getValue().asText();
        String target = withoutFragment(resolve(here, ref, at));
        if (!declared.contains(target) && !BUNDLED_IRIS.contains(target)) {
          throw new InvalidInputException(
              "schema" + at,
              "refers to "
                  + ref
                  + ", outside this schema: references"
                  + " may point only into this schema (e.g. #/$defs/meter) or to a bundled JSON Schema meta-schema;"
                  + " the registry fetches nothing (no network, file or class-path addresses)");
        }
      } else {
        checkNode(e.getValue(), here, at, declared);
      }
    }
  }

  private static String resolve(String base, String ref, String pointer) {
    try {
      URI resolved = new URI(base).resolve(new URI(ref));
      return resolved.toString();
    } catch (URISyntaxException | IllegalArgumentException e) {
      throw new InvalidInputException(
          "schema" + pointer, "is not a valid URI reference: " + e.getMessage());
    }
  }

  private static String withoutFragment(String iri) {
    int hash = iri.indexOf('#');
    return hash < 0 ? iri : iri.substring(0, hash);
  }

  /** JSON Pointer escaping of one segment (RFC 6901). */
  private static String escape(String segment) {
    return segment.replace("~", "~0").replace("/", "~1");
  }

  /**
   * Serves the validator's bundled meta-schemas (it maps their json-schema.org IRIs to {@code
   * classpath:draft/...} before asking loaders) and refuses everything else. Never returns null, so
   * the validator's default loaders, which would read class-path resources or open URLs, are never
   * asked.
   */
  private static final class BundledOnly implements SchemaLoader {
    @Override
    public InputStreamSource getSchema(AbsoluteIri iri) {
      String text = iri == null ? "" : iri.toString();
      String name = text.startsWith("classpath:") ? text.substring("classpath:".length()) : null;
      while (name != null && name.startsWith("/")) {
        name = name.substring(1);
      }
      if (name != null && BUNDLED.contains(name)) {
        String resource = name;
        return () -> {
          InputStream in = SchemaLoader.class.getClassLoader().getResourceAsStream(resource);
          if (in == null) {
            throw new FileNotFoundException(resource);
          }
          return in;
        };
      }
      throw new InvalidSchemaException(
          ValidationMessage.builder()
              .message(
                  "the schema refers to ''{1}'', which the registry does not load: references may point only into"
                      + " the schema itself or to a bundled meta-schema")
              .arguments(text)
              .build());
    }
  }
}
