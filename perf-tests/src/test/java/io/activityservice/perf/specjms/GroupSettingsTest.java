package io.activityservice.perf.specjms;

import static org.assertj.core.api.Assertions.assertThat;

import io.activityservice.perf.specjms.Workload.Group;
import io.activityservice.perf.specjms.Workload.Role;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Message groups a–d (Table 5.3) → the driver's producer and consumer settings per transport. */
class GroupSettingsTest {

  @Test
  void groupsFollowTable53() {
    assertThat(GroupSettings.of(Group.A))
        .isEqualTo(new GroupSettings(Group.A, true, false, false, false));
    assertThat(GroupSettings.of(Group.B))
        .isEqualTo(new GroupSettings(Group.B, true, true, true, true));
    assertThat(GroupSettings.of(Group.C))
        .isEqualTo(new GroupSettings(Group.C, false, false, false, false));
    assertThat(GroupSettings.of(Group.D))
        .isEqualTo(new GroupSettings(Group.D, false, true, true, false));
  }

  @Test
  void kafkaProducersSendNonPersistentGroupsWithoutReceiptAndTransactionalOnesInATransaction() {
    assertThat(GroupSettings.of(Group.A).kafkaProducer("tx-a"))
        .isEqualTo(Map.of("acks", "0", "enable.idempotence", "false"));
    assertThat(GroupSettings.of(Group.C).kafkaProducer(null))
        .isEqualTo(Map.of("acks", "0", "enable.idempotence", "false"));
    assertThat(GroupSettings.of(Group.B).kafkaProducer("tx-b"))
        .isEqualTo(Map.of("acks", "all", "enable.idempotence", "true", "transactional.id", "tx-b"));
    // Without an id (a broker that refused transactions): persistent and idempotent only.
    assertThat(GroupSettings.of(Group.D).kafkaProducer(null))
        .isEqualTo(Map.of("acks", "all", "enable.idempotence", "true"));
  }

  @Test
  void reportSaysHowEachTransportHonoursTheGroup() {
    assertThat(GroupSettings.of(Group.C).honouredOn("jms")).startsWith("NON_PERSISTENT");
    assertThat(GroupSettings.of(Group.B).honouredOn("jms")).contains("transacted");
    assertThat(GroupSettings.of(Group.B).honouredOn("sqs"))
        .isEqualTo(GroupSettings.of(Group.A).honouredOn("sqs"));
  }

  @Test
  void theServiceDeliversNonPersistentlyOnlyJmsTargetsCarryingOnlyGroupsAOrC() {
    assertThat(GroupSettings.serviceTarget("jms:queue:hq0", List.of(Group.C)))
        .isEqualTo("jms:queue:hq0?persistent=false");
    assertThat(GroupSettings.serviceTarget("jms:topic:sm", List.of(Group.A, Group.C)))
        .isEqualTo("jms:topic:sm?persistent=false");
    assertThat(GroupSettings.serviceTarget("jms:queue:hq0", List.of(Group.C, Group.D)))
        .isEqualTo("jms:queue:hq0");
    assertThat(GroupSettings.serviceTarget("jms:queue:x?persistent=true", List.of(Group.C)))
        .isEqualTo("jms:queue:x?persistent=true");
    assertThat(GroupSettings.serviceTarget("sqs:sm0", List.of(Group.A))).isEqualTo("sqs:sm0");
    assertThat(GroupSettings.serviceTarget("kafka:hq0", List.of(Group.C))).isEqualTo("kafka:hq0");
  }

  @Test
  void distributionCentresReceiveOnlyTransactionalMessagesInThisMapping() {
    // order, shipDep, shipConf, offer, pOrderConf, pShipInfo: all group d.
    assertThat(SpecjmsRun.receivesOnlyTransacted(Role.DC)).isTrue();
    // The HQ receives group c statistics too.
    assertThat(SpecjmsRun.receivesOnlyTransacted(Role.HQ)).isFalse();
  }
}
