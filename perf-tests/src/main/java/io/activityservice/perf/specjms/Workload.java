package io.activityservice.perf.specjms;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The SPECjms2007 supply chain (Sachs 2010, §5.1; digest in the project's reference notes) at one
 * BASE: locations, interactions 1–7 with their messages (Table 5.1), message groups a–d (Table
 * 5.3), sizes small/medium/large at 95/4/1 % (Tables 5.2/5.5), and the rates of the horizontal
 * (Table 5.4) or vertical (Table 5.7) topology. Pure arithmetic: the driver draws from it and the
 * audit compares against its predictions.
 *
 * <p>Rates λ1, λ2, λ4, λ5 are per instance of the initiating location (SM, DC); λ3, λ6, λ7 are
 * totals over the HQ instances. With these the predicted received-message rate is 55.04 per BASE
 * horizontally and 17.26 vertically, the thesis's Table 5.6 mixes (checked in {@code
 * WorkloadTest}).
 */
public record Workload(
    Topology topology,
    int base,
    int supermarkets,
    int distributionCentres,
    int suppliers,
    int headquarters,
    int productFamilies,
    List<List<Integer>> familiesOfSupplier) {

  /** Horizontal: destinations grow with BASE at fixed rates per location; vertical: the reverse. */
  public enum Topology {
    HORIZONTAL,
    VERTICAL
  }

  /** Location roles. */
  public enum Role {
    SM,
    DC,
    HQ,
    SP
  }

  /**
   * Message groups (Table 5.3): a pub/sub NP NT ND, b pub/sub P T D, c P2P NP NT, d P2P P T. The
   * driver's producers and consumers honour them where the transport can ({@link GroupSettings});
   * the service itself delivers every group with its durable at-least-once semantics.
   */
  public enum Group {
    A,
    B,
    C,
    D
  }

  /**
   * One message type.
   *
   * @param name its name in the thesis, also the event type's last segment
   * @param interaction 1 to 7
   * @param group a–d
   * @param from the sending location's role
   * @param to the receiving location's role
   * @param topic whether it is published to every subscriber (priceUpdate, productAnnouncement,
   *     creditCardHL to every SM; callForOffers to the suppliers of its product family)
   * @param kb sizes small, medium, large in KB
   */
  public record Message(
      String name, int interaction, Group group, Role from, Role to, boolean topic, double[] kb) {

    /** Size in bytes of a draw {@code u} in [0, 1): small 95 %, medium 4 %, large 1 %. */
    public int bytes(double u) {
      double k = u < 0.95 ? kb[0] : u < 0.99 ? kb[1] : kb[2];
      return (int) Math.round(k * 1024);
    }
  }

  /** Every message type, in the order of Table 5.1. */
  public static final List<Message> MESSAGES =
      List.of(
          m("order", 1, Group.D, Role.SM, Role.DC, 1.74, 7.10, 41.01),
          m("orderConf", 1, Group.D, Role.DC, Role.SM, 2.02, 7.39, 41.29),
          m("shipDep", 1, Group.D, Role.DC, Role.DC, 1.12, 8.59, 55.79),
          m("statInfoOrderDC", 1, Group.C, Role.DC, Role.HQ, 0.22, 1.67, 10.83),
          m("shipInfo", 1, Group.D, Role.DC, Role.SM, 1.28, 8.76, 55.95),
          m("shipConf", 1, Group.D, Role.SM, Role.DC, 0.81, 2.73, 14.83),
          topic("callForOffers", 2, Group.B, Role.DC, Role.SP, 1.35, 7.06, 36.52),
          m("offer", 2, Group.D, Role.SP, Role.DC, 1.69, 9.65, 50.71),
          m("pOrder", 2, Group.D, Role.DC, Role.SP, 1.86, 9.85, 51.07),
          m("pOrderConf", 2, Group.D, Role.SP, Role.DC, 2.07, 9.79, 49.56),
          m("invoice", 2, Group.D, Role.SP, Role.HQ, 1.70, 7.92, 39.95),
          m("pShipInfo", 2, Group.D, Role.SP, Role.DC, 0.98, 3.62, 17.26),
          m("pShipConf", 2, Group.D, Role.DC, Role.SP, 1.01, 3.65, 17.29),
          m("statInfoShipDC", 2, Group.C, Role.DC, Role.HQ, 1.02, 3.68, 17.38),
          topic("priceUpdate", 3, Group.B, Role.HQ, Role.SM, 0.24, 0.24, 0.24),
          m("inventoryInfo", 4, Group.D, Role.SM, Role.SM, 1.48, 10.22, 49.03),
          // statInfoSM: 4.7–24.78 KB, mean 5.27 (§5.1.4); the medium size is not printed, 12 KB
          // is this driver's choice.
          m("statInfoSM", 5, Group.C, Role.SM, Role.HQ, 4.70, 12.0, 24.78),
          topic("productAnnouncement", 6, Group.A, Role.HQ, Role.SM, 1.21, 0.28, 10.51),
          topic("creditCardHL", 7, Group.A, Role.HQ, Role.SM, 1.01, 8.49, 50.00));

  private static final double[] HORIZONTAL_RATES = {
    1.53920154, 2.133333333, 6.0, 3.37837837, 11.54401154, 11.38519924, 9.23076923
  };
  private static final double[] VERTICAL_FACTORS = {
    0.076190476, 0.106666667, 0.05, 0.162162162, 0.577200577, 0.142314991, 0.102564103
  };

  /** The initiating role of each interaction (1–7). */
  static final Role[] INITIATOR = {Role.SM, Role.DC, Role.HQ, Role.SM, Role.SM, Role.HQ, Role.HQ};

  private static Message m(
      String name, int i, Group g, Role from, Role to, double s, double md, double l) {
    return new Message(name, i, g, from, to, false, new double[] {s, md, l});
  }

  private static Message topic(
      String name, int i, Group g, Role from, Role to, double s, double md, double l) {
    return new Message(name, i, g, from, to, true, new double[] {s, md, l});
  }

  /** The workload of a topology at a BASE (at least 1). */
  public static Workload of(Topology topology, int base) {
    if (base < 1) {
      throw new IllegalArgumentException("BASE must be at least 1, e.g. --base 5");
    }
    int sm;
    int dc;
    int sp;
    int hq;
    int families;
    List<List<Integer>> offers = new ArrayList<>();
    if (topology == Topology.HORIZONTAL) {
      sm = base;
      dc = (sm + 4) / 5;
      sp = (int) Math.ceil(0.4 * sm);
      hq = (sm + 9) / 10;
      families = sm;
      // ρ = 5/Π: each supplier offers 5 consecutive families (all of them when Π < 5), so that with
      // SP = 0.4·SM every family has ζ = 2 suppliers.
      for (int j = 0; j < sp; j++) {
        List<Integer> f = new ArrayList<>();
        for (int k = 0; k < Math.min(5, families); k++) {
          f.add((5 * j + k) % families);
        }
        offers.add(List.copyOf(f));
      }
    } else {
      sm = 10;
      dc = 2;
      sp = 5;
      hq = 2;
      families = 100;
      // ρ = 50 %: suppliers 0, 2, 4 offer the even families, 1 and 3 the odd ones (ζ = 2.5).
      for (int j = 0; j < sp; j++) {
        List<Integer> f = new ArrayList<>();
        for (int k = 0; k < families; k++) {
          if ((k + j) % 2 == 0) {
            f.add(k);
          }
        }
        offers.add(List.copyOf(f));
      }
    }
    return new Workload(topology, base, sm, dc, sp, hq, families, List.copyOf(offers));
  }

  /** Instances of a role. */
  public int count(Role r) {
    return switch (r) {
      case SM -> supermarkets;
      case DC -> distributionCentres;
      case HQ -> headquarters;
      case SP -> suppliers;
    };
  }

  /** Executions per second of interaction {@code i} (1–7), all initiating locations together. */
  public double rate(int i) {
    boolean total = INITIATOR[i - 1] == Role.HQ;
    double perInstance =
        topology == Topology.HORIZONTAL ? HORIZONTAL_RATES[i - 1] : VERTICAL_FACTORS[i - 1] * base;
    return total ? perInstance : perInstance * count(INITIATOR[i - 1]);
  }

  /** Suppliers offering a product family (the callForOffers subscribers that match it). */
  public int suppliersOf(int family) {
    int n = 0;
    for (List<Integer> f : familiesOfSupplier) {
      if (f.contains(family)) {
        n++;
      }
    }
    return n;
  }

  /** Mean suppliers per product family: ζ. */
  public double zeta() {
    double n = 0;
    for (int f = 0; f < productFamilies; f++) {
      n += suppliersOf(f);
    }
    return n / productFamilies;
  }

  /** Messages of this type sent per execution of its interaction (offers: ζ, others 1). */
  public double sentPerExecution(Message m) {
    return m.name().equals("offer") ? zeta() : 1;
  }

  /**
   * Messages of this type received per execution: topics reach every subscriber (ζ suppliers for
   * callForOffers, every SM for the HQ topics).
   */
  public double receivedPerExecution(Message m) {
    if (m.name().equals("callForOffers") || m.name().equals("offer")) {
      return zeta();
    }
    return m.topic() ? supermarkets : 1;
  }

  /** Predicted messages per second sent and received, per interaction 1–7. */
  public Map<Integer, double[]> predicted() {
    Map<Integer, double[]> p = new LinkedHashMap<>();
    for (int i = 1; i <= 7; i++) {
      p.put(i, new double[2]);
    }
    for (Message m : MESSAGES) {
      double[] v = p.get(m.interaction());
      v[0] += rate(m.interaction()) * sentPerExecution(m);
      v[1] += rate(m.interaction()) * receivedPerExecution(m);
    }
    return p;
  }

  /** Predicted received messages per second by group, a–d. */
  public Map<Group, Double> receivedByGroup() {
    Map<Group, Double> g = new LinkedHashMap<>();
    for (Group x : Group.values()) {
      g.put(x, 0.0);
    }
    for (Message m : MESSAGES) {
      g.merge(m.group(), rate(m.interaction()) * receivedPerExecution(m), Double::sum);
    }
    return g;
  }

  /** Predicted messages per second: {sent, received}, all interactions. */
  public double[] totals() {
    double[] t = new double[2];
    for (double[] v : predicted().values()) {
      t[0] += v[0];
      t[1] += v[1];
    }
    return t;
  }
}
