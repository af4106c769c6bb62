package io.activityservice.events.definition;

import io.activityservice.events.json.Json;
import io.activityservice.events.scope.TypeScope;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The table of one kind of definition, owned by its module (each module reads and writes only its
 * own tables).
 *
 * @param <D> the definition
 */
public interface DefinitionStore<D extends Definition> {

  /**
   * A stored definition with the compiled form its creating replica stored ({@code null} if none).
   */
  record Stored<D>(D definition, String compiledForm) {}

  /** Every stored definition, by name. */
  List<D> findAll();

  Optional<D> find(String name);

  /** A definition and its compiled form, in one read. */
  default Optional<Stored<D>> findStored(String name) {
    return find(name).map(d -> new Stored<>(d, null));
  }

  /**
   * Inserts with its compiled form ({@code null} for none).
   *
   * @return false if a definition of that name exists
   */
  boolean insert(D definition, String compiledForm);

  /**
   * Replaces a definition if the stored version is still {@code expectedVersion}.
   *
   * @return false if it changed meanwhile (or is gone)
   * @throws UnsupportedOperationException for kinds that cannot be replaced
   */
  default boolean update(D definition, long expectedVersion) {
    throw new UnsupportedOperationException("definitions of this kind cannot be replaced");
  }

  /**
   * @return false if there was none of that name
   */
  boolean delete(String name);

  /** The stored form of an author's scope: a JSON array of its patterns, or NULL for unscoped. */
  static String writeScope(TypeScope scope) {
    return scope == null ? null : Json.write(Json.tree(scope.patterns()));
  }

  /** A stored scope; NULL (unscoped) stays null. */
  static TypeScope readScope(String stored) {
    if (stored == null) {
      return null;
    }
    List<String> patterns = new ArrayList<>();
    Json.parse(stored, "author_scope").forEach(p -> patterns.add(p.asText()));
    return TypeScope.of(patterns, "author_scope");
  }
}
