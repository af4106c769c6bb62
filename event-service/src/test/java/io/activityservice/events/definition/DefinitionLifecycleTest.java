package io.activityservice.events.definition;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.activityservice.events.cluster.ConfigChanges;
import io.activityservice.events.problem.ConflictException;
import io.activityservice.events.problem.InvalidInputException;
import io.activityservice.events.problem.NotFoundException;
import io.activityservice.events.scope.TypeScope;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * The shared lifecycle's own logic on an in-memory table and engine (the modules' suites run it on
 * H2 with Esper and Drools; the cluster ITs across replicas): nothing is stored when preparing
 * fails, nothing keeps running when storing fails, a replacement that loses a race leaves the
 * running version, and other replicas' changes apply.
 */
class DefinitionLifecycleTest {

  record Def(String name, long version, String body) implements Definition {
    @Override
    public String partitionBy() {
      return null;
    }

    @Override
    public TypeScope authorScope() {
      return null;
    }
  }

  /** A table shared by the "replicas" of a test. */
  static final class Table implements DefinitionStore<Def> {
    final Map<String, Def> rows = new TreeMap<>();

    @Override
    public List<Def> findAll() {
      return List.copyOf(rows.values());
    }

    @Override
    public Optional<Def> find(String name) {
      return Optional.ofNullable(rows.get(name));
    }

    @Override
    public boolean insert(Def d, String compiledForm) {
      return rows.putIfAbsent(d.name(), d) == null;
    }

    @Override
    public boolean update(Def d, long expectedVersion) {
      Def old = rows.get(d.name());
      if (old == null || old.version() != expectedVersion) {
        return false;
      }
      rows.put(d.name(), d);
      return true;
    }

    @Override
    public boolean delete(String name) {
      return rows.remove(name) != null;
    }
  }

  /** An engine that refuses bodies saying "bad" and records what runs. */
  static final class Engine implements DefinitionRuntime<Def, String> {
    final Map<String, String> running = new TreeMap<>();
    final List<String> discarded = new ArrayList<>();

    @Override
    public String prepare(Def d, String compiledForm) {
      if (d.body().contains("bad")) {
        throw new InvalidInputException("body", "does not compile");
      }
      return d.body();
    }

    @Override
    public void start(Def d, String prepared) {
      running.put(d.name(), prepared);
    }

    @Override
    public void discard(Def d, String prepared) {
      discarded.add(d.name());
    }

    @Override
    public void stop(String name) {
      running.remove(name);
    }
  }

  final Table table = new Table();
  final Engine engine = new Engine();
  final DefinitionLifecycle<Def, String> lifecycle =
      new DefinitionLifecycle<>(
          new DefinitionLifecycle.Kind("things", "thing", "use PUT /things/{name}"),
          table,
          engine,
          ConfigChanges.unrecorded(),
          Placement.local());

  @Test
  void createStoresAndStartsAndATakenNameIsAConflictNamingTheFix() {
    lifecycle.create(new Def("a", 1, "v1"));
    assertThat(table.rows).containsKey("a");
    assertThat(engine.running).containsEntry("a", "v1");
    assertThatThrownBy(() -> lifecycle.create(new Def("a", 1, "v2")))
        .isInstanceOf(ConflictException.class)
        .hasMessage("thing 'a' already exists; use PUT /things/a");
    assertThat(engine.running).containsEntry("a", "v1");
  }

  @Test
  void whatDoesNotCompileIsNeitherStoredNorStarted() {
    assertThatThrownBy(() -> lifecycle.create(new Def("a", 1, "bad")))
        .isInstanceOf(InvalidInputException.class);
    assertThat(table.rows).isEmpty();
    assertThat(engine.running).isEmpty();
  }

  @Test
  void whatCannotBeStoredIsDiscarded() {
    DefinitionLifecycle<Def, String> failing =
        new DefinitionLifecycle<>(
            new DefinitionLifecycle.Kind("things", "thing", "x"),
            table,
            engine,
            (kind, key, write) -> {
              throw new IllegalStateException("database down");
            },
            Placement.local());
    assertThatThrownBy(() -> failing.create(new Def("a", 1, "v1"))).hasMessage("database down");
    assertThat(engine.discarded).containsExactly("a");
    assertThat(engine.running).isEmpty();
  }

  @Test
  void aReplacementThatLostARaceLeavesTheRunningVersion() {
    lifecycle.create(new Def("a", 1, "v1"));
    lifecycle.replace(new Def("a", 2, "v2"), 1);
    assertThat(engine.running).containsEntry("a", "v2");
    assertThatThrownBy(() -> lifecycle.replace(new Def("a", 3, "v3"), 1))
        .isInstanceOf(ConflictException.class)
        .hasMessageContaining("changed concurrently");
    assertThatThrownBy(() -> lifecycle.replace(new Def("a", 3, "bad"), 2))
        .isInstanceOf(InvalidInputException.class);
    assertThat(engine.running).containsEntry("a", "v2");
    assertThat(table.rows.get("a").body()).isEqualTo("v2");
  }

  @Test
  void anotherReplicasChangesApplyAndAStoredDefinitionThatNoLongerCompilesIsReported() {
    Engine other = new Engine();
    DefinitionLifecycle<Def, String> replica =
        new DefinitionLifecycle<>(
            new DefinitionLifecycle.Kind("things", "thing", "x"),
            table,
            other,
            ConfigChanges.unrecorded(),
            Placement.local());
    lifecycle.create(new Def("a", 1, "v1"));
    replica.reload("a");
    assertThat(other.running).containsEntry("a", "v1");
    lifecycle.replace(new Def("a", 2, "v2"), 1);
    replica.reload("a");
    assertThat(other.running).containsEntry("a", "v2");
    table.rows.put("b", new Def("b", 1, "bad"));
    replica.loadAll();
    assertThat(replica.failure("b")).isEqualTo("body: does not compile");
    assertThat(other.running).doesNotContainKey("b");
    lifecycle.delete("a");
    replica.reload("a");
    assertThat(other.running).doesNotContainKey("a");
    assertThatThrownBy(() -> lifecycle.delete("a")).isInstanceOf(NotFoundException.class);
  }
}
