package io.activityservice.perf.specjms;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The rules of Table 5.8 on made-up counts: each one can fail on its own. */
class AuditTest {

  private static Audit.InteractionCounts ok() {
    // 10/s for 30 s: 300 executions, 6 messages each.
    return new Audit.InteractionCounts(1, 10, 300, 10, 1800, 1800, 1800, 1800);
  }

  @Test
  void allRulesPassOnAFaithfulRun() {
    List<Audit.Rule> rules = Audit.rules(30, List.of(ok()), Map.of("dc0", 120.0), 5000, 5000);
    assertThat(Audit.passed(rules)).isTrue();
    assertThat(Audit.table(rules))
        .contains("PASS")
        .doesNotContain("FAIL")
        .endsWith("AUDIT PASSED\n");
  }

  @Test
  void eachRuleFailsOnItsOwn() {
    Map<String, Double> fast = Map.of("dc0", 120.0);
    // rate 5.3 % low
    assertFails(
        Audit.rules(
            30,
            List.of(new Audit.InteractionCounts(1, 10, 284, 0, 1800, 1800, 1800, 1800)),
            fast,
            1,
            1),
        "I1 input rate (/s)");
    // received 6 % low (a backlog)
    assertFails(
        Audit.rules(
            30,
            List.of(new Audit.InteractionCounts(1, 10, 300, 0, 1800, 1800, 1800, 1692)),
            fast,
            1,
            1),
        "I1 received");
    // 21 % of executions behind schedule
    assertFails(
        Audit.rules(
            30,
            List.of(new Audit.InteractionCounts(1, 10, 300, 63, 1800, 1800, 1800, 1800)),
            fast,
            1,
            1),
        "I1 pacing misses");
    assertFails(Audit.rules(30, List.of(ok()), Map.of("sm3", 5001.0), 1, 1), "p90 delivery sm3");
    assertFails(
        Audit.rules(30, List.of(ok()), fast, 5000, 4999),
        "every message received by every subscriber");
  }

  private static void assertFails(List<Audit.Rule> rules, String name) {
    assertThat(Audit.passed(rules)).isFalse();
    assertThat(rules).filteredOn(r -> !r.pass()).extracting(Audit.Rule::name).containsExactly(name);
    assertThat(Audit.table(rules)).contains("FAIL").endsWith("AUDIT FAILED\n");
  }
}
