package io.activityservice.channel.support;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import org.junit.jupiter.api.Test;

class FuturesTest {

  @Test
  void unwrapsNestedCompletionAndExecutionExceptions() {
    IOException cause = new IOException("refused");
    assertThat(
            Futures.unwrap(
                new CompletionException(new ExecutionException(new CompletionException(cause)))))
        .isSameAs(cause);
  }

  @Test
  void unwrapsWhatAFailedStageCompletesWith() {
    IOException cause = new IOException("refused");
    Throwable[] seen = new Throwable[1];
    CompletableFuture.<Void>failedFuture(cause)
        .thenApply(v -> v)
        .whenComplete((v, e) -> seen[0] = e);
    assertThat(seen[0]).isInstanceOf(CompletionException.class);
    assertThat(Futures.unwrap(seen[0])).isSameAs(cause);
  }

  @Test
  void leavesOtherFailuresAndCauselessWrappersAlone() {
    IllegalStateException plain = new IllegalStateException("x", new IOException());
    assertThat(Futures.unwrap(plain)).isSameAs(plain);
    CompletionException bare = new CompletionException("no cause", null);
    assertThat(Futures.unwrap(bare)).isSameAs(bare);
    assertThat(Futures.unwrap(null)).isNull();
  }
}
