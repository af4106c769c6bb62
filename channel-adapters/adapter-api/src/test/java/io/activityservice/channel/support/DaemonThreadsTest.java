package io.activityservice.channel.support;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.ThreadFactory;
import org.junit.jupiter.api.Test;

class DaemonThreadsTest {

  @Test
  void factoryNumbersItsDaemonThreads() {
    ThreadFactory f = DaemonThreads.factory("rule-action");
    Thread a = f.newThread(() -> {});
    Thread b = f.newThread(() -> {});
    assertThat(a.getName()).isEqualTo("rule-action-1");
    assertThat(b.getName()).isEqualTo("rule-action-2");
    assertThat(a.isDaemon()).isTrue();
    assertThat(b.isDaemon()).isTrue();
  }

  @Test
  void namedFactoryGivesEveryThreadTheSameName() {
    ThreadFactory f = DaemonThreads.named("delivery-timer");
    assertThat(f.newThread(() -> {}).getName()).isEqualTo("delivery-timer");
    assertThat(f.newThread(() -> {}).getName()).isEqualTo("delivery-timer");
    assertThat(f.newThread(() -> {}).isDaemon()).isTrue();
  }

  @Test
  void threadIsAnUnstartedDaemonThatRunsItsTask() throws InterruptedException {
    boolean[] ran = new boolean[1];
    Thread t = DaemonThreads.thread("archive-writer", () -> ran[0] = true);
    assertThat(t.getName()).isEqualTo("archive-writer");
    assertThat(t.isDaemon()).isTrue();
    assertThat(t.getState()).isEqualTo(Thread.State.NEW);
    t.start();
    t.join();
    assertThat(ran[0]).isTrue();
  }
}
