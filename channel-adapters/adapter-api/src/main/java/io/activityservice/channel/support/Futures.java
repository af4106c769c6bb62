package io.activityservice.channel.support;

import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;

/**
 * Small helpers for {@link java.util.concurrent.CompletableFuture} results, shared by every module
 * so that the unwrapping of wrapper exceptions is written once.
 */
public final class Futures {

  private Futures() {}

  /**
   * The failure behind the {@link CompletionException} and {@link ExecutionException} wrappers that
   * {@code CompletableFuture} stages and {@code get()} add: unwraps them (nested ones too) down to
   * the first throwable that is not such a wrapper, or to a wrapper without a cause.
   *
   * @param error the failure a future completed with; may be null
   * @return the underlying failure, {@code error} itself if it is no wrapper, null if {@code error}
   *     is null
   */
  public static Throwable unwrap(Throwable error) {
    Throwable t = error;
    while ((t instanceof CompletionException || t instanceof ExecutionException)
        && t.getCause() != null
        && t.getCause() != t) {
      t = t.getCause();
    }
    return t;
  }
}
