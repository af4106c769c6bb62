package io.activityservice.perf.specjms;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import io.activityservice.perf.specjms.Workload.Group;
import io.activityservice.perf.specjms.Workload.Topology;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The workload against the thesis's own figures (Sachs 2010, Tables 5.4, 5.6, 5.7): location
 * counts, the achieved message mixes by group, and the message rates per BASE.
 */
class WorkloadTest {

  @Test
  void horizontalTopologyScalesLocationsAndReproducesTheThesisMix() {
    Workload w = Workload.of(Topology.HORIZONTAL, 10);
    assertThat(w.supermarkets()).isEqualTo(10);
    assertThat(w.distributionCentres()).isEqualTo(2);
    assertThat(w.suppliers()).isEqualTo(4);
    assertThat(w.headquarters()).isEqualTo(1);
    assertThat(w.productFamilies()).isEqualTo(10);
    assertThat(w.zeta()).isEqualTo(2.0); // ρ = 5/Π with SP = 0.4·SM
    // ~55.04 received per BASE; sent: ~28.0 per BASE plus the HQ's fixed 26.6/s (λ3 + λ6 + λ7).
    assertThat(w.totals()[1]).isCloseTo(550.4, within(0.1));
    assertThat(w.totals()[0]).isCloseTo(280.0 + 6.0 + 11.385 + 9.231, within(0.1));
    assertMix(w, 37.46, 12.45, 24.55, 25.55);
  }

  @Test
  void verticalTopologyScalesRatesAndReproducesTheThesisMix() {
    Workload w = Workload.of(Topology.VERTICAL, 100);
    assertThat(w.supermarkets()).isEqualTo(10);
    assertThat(w.distributionCentres()).isEqualTo(2);
    assertThat(w.suppliers()).isEqualTo(5);
    assertThat(w.headquarters()).isEqualTo(2);
    assertThat(w.zeta()).isEqualTo(2.5); // ρ = 50 % of 100 families over 5 suppliers
    assertThat(w.totals()[1]).isCloseTo(1726, within(1.0));
    assertThat(w.totals()[0]).isCloseTo(1429, within(1.0));
    assertMix(w, 14.19, 5.99, 39.09, 40.74);
    // Rates are cᵢ·BASE: doubling BASE doubles every rate.
    assertThat(Workload.of(Topology.VERTICAL, 200).totals()[1]).isCloseTo(3452, within(2.0));
  }

  @Test
  void sizesAreSmallMediumLargeAt95To4To1() {
    Workload.Message order = Workload.MESSAGES.get(0);
    assertThat(order.name()).isEqualTo("order");
    assertThat(order.bytes(0.0)).isEqualTo(Math.round(1.74 * 1024));
    assertThat(order.bytes(0.9499)).isEqualTo(Math.round(1.74 * 1024));
    assertThat(order.bytes(0.95)).isEqualTo(Math.round(7.10 * 1024));
    assertThat(order.bytes(0.99)).isEqualTo(Math.round(41.01 * 1024));
  }

  @Test
  void everyProductFamilyHasASupplierAtSmallBases() {
    for (int base = 1; base <= 12; base++) {
      Workload w = Workload.of(Topology.HORIZONTAL, base);
      for (int f = 0; f < w.productFamilies(); f++) {
        assertThat(w.suppliersOf(f)).as("BASE %d family %d", base, f).isPositive();
      }
    }
    assertThatThrownBy(() -> Workload.of(Topology.VERTICAL, 0)).hasMessageContaining("BASE");
  }

  private static void assertMix(Workload w, double a, double b, double c, double d) {
    Map<Group, Double> g = w.receivedByGroup();
    double total = w.totals()[1];
    assertThat(100 * g.get(Group.A) / total).isCloseTo(a, within(0.05));
    assertThat(100 * g.get(Group.B) / total).isCloseTo(b, within(0.05));
    assertThat(100 * g.get(Group.C) / total).isCloseTo(c, within(0.05));
    assertThat(100 * g.get(Group.D) / total).isCloseTo(d, within(0.05));
  }
}
