package io.activityservice.app.web;

import io.activityservice.events.problem.OverloadedException;
import io.activityservice.events.routing.EventRouter;
import io.activityservice.events.routing.RoutingOutcome;
import jakarta.servlet.AsyncContext;
import jakarta.servlet.AsyncEvent;
import jakarta.servlet.AsyncListener;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.web.servlet.HandlerExceptionResolver;
import tools.jackson.databind.json.JsonMapper;

/**
 * The answer to one {@code POST /api/v1/events}: counts the events still routing and writes the
 * answer once the last one is durable — without a second (async) dispatch through the filter chain
 * and Spring MVC.
 *
 * <p>Who writes: the request thread, in the handler, if every event settled before it finished
 * routing; otherwise the request is put in async mode and the answer is written by the thread that
 * settles the last event — but never while the request thread is still on its way out through the
 * filters (they may still set headers on the response): {@link PublishAnswerFilter}, the outermost
 * filter, tells the answer when the dispatch is over, and if the last event settled before that,
 * the request thread writes the answer there. A refusal after routing started (503) is rendered by
 * the application's problem handler, like any error.
 */
final class PublishAnswer {

  private static final Logger log = LoggerFactory.getLogger(PublishAnswer.class);

  /** The request attribute under which an answer waits for {@link PublishAnswerFilter}. */
  static final String ATTRIBUTE = PublishAnswer.class.getName();

  private final int total;
  private final JsonMapper json;
  private final HandlerExceptionResolver problems;
  private final long timeoutMillis;

  /** Guarded by {@code this}. */
  private int open;

  private int delivered;
  private int parked;
  private Throwable error;

  /** Events whose routing failed (allocated on the first failure). */
  private Throwable[] failures;

  private List<EventController.Accepted> accepted;
  private AsyncContext async;

  /** Whether the request thread has left the filter chain (only then may another thread write). */
  private boolean dispatchReturned;

  private boolean answered;

  PublishAnswer(int total, JsonMapper json, HandlerExceptionResolver problems, long timeoutMillis) {
    this.total = total;
    this.open = total;
    this.json = json;
    this.problems = problems;
    this.timeoutMillis = timeoutMillis;
  }

  /** The routing callback of event {@code i}. */
  EventRouter.Callback event(int i) {
    return (outcome, err) -> settled(i, outcome, err);
  }

  /**
   * Why routing refused event {@code i} before returning, or {@code null}; the request then fails
   * at once.
   */
  synchronized Throwable refusedAt(int i) {
    if (failures == null || failures[i] == null) {
      return null;
    }
    answered = true;
    return failures[i];
  }

  /**
   * Every event is routing (on the request thread, in the handler): answers now if all settled,
   * else puts the request in async mode.
   */
  void routedAll(
      List<EventController.Accepted> list, HttpServletRequest request, HttpServletResponse response)
      throws IOException {
    boolean now;
    synchronized (this) {
      accepted = list;
      now = open == 0;
      if (now) {
        answered = true;
      } else {
        async = request.startAsync(request, response);
        async.setTimeout(timeoutMillis);
        async.addListener(new TimeoutListener());
        request.setAttribute(ATTRIBUTE, this);
      }
    }
    if (now) {
      if (error != null) {
        throw EventController.refused(error, 0, total);
      }
      writeAccepted(response);
    }
  }

  /**
   * The request thread left the outermost filter: from now on any thread may write; answers if it
   * is ready.
   */
  void dispatchReturned() {
    synchronized (this) {
      dispatchReturned = true;
      if (open > 0 || answered || async == null) {
        return;
      }
      answered = true;
    }
    finish(null);
  }

  private void settled(int i, RoutingOutcome outcome, Throwable err) {
    synchronized (this) {
      if (err != null) {
        if (error == null) {
          error = err;
        }
        if (failures == null) {
          failures = new Throwable[total];
        }
        failures[i] = err;
      } else {
        delivered += outcome.delivered();
        parked += outcome.parked();
      }
      if (--open > 0 || async == null || !dispatchReturned || answered) {
        return;
      }
      answered = true;
    }
    finish(null);
  }

  /** Writes the answer (or {@code failure}'s problem), then completes the async request. */
  private void finish(RuntimeException failure) {
    AsyncContext ctx = async;
    try {
      HttpServletRequest request = (HttpServletRequest) ctx.getRequest();
      HttpServletResponse response = (HttpServletResponse) ctx.getResponse();
      RuntimeException problem =
          failure != null
              ? failure
              : error != null ? EventController.refused(error, 0, total) : null;
      if (problem == null) {
        writeAccepted(response);
      } else {
        problems.resolveException(request, response, null, problem);
      }
    } catch (IOException | RuntimeException e) {
      log.debug("writing the answer to a publish request failed: {}", e.toString());
    } finally {
      ctx.complete();
    }
  }

  private void writeAccepted(HttpServletResponse response) throws IOException {
    byte[] bytes;
    synchronized (this) {
      bytes =
          json.writeValueAsBytes(
              new EventController.PublishResponse(accepted.size(), accepted, delivered, parked));
    }
    response.setStatus(HttpStatus.ACCEPTED.value());
    response.setContentType(MediaType.APPLICATION_JSON_VALUE);
    response.setContentLength(bytes.length);
    response.getOutputStream().write(bytes);
  }

  /** Not durable within the async request timeout: 503, like a refusal (the client retries). */
  private final class TimeoutListener implements AsyncListener {
    @Override
    public void onTimeout(AsyncEvent event) {
      synchronized (PublishAnswer.this) {
        if (answered) {
          return;
        }
        answered = true;
      }
      finish(
          new OverloadedException(
              "the events were not taken over durably within "
                  + timeoutMillis
                  + " ms; retry the request later (events delivered meanwhile are recognised as duplicates within the dedup"
                  + " window)"));
    }

    @Override
    public void onComplete(AsyncEvent event) {
      // nothing to release
    }

    @Override
    public void onError(AsyncEvent event) {
      // the client went away: nothing to answer
    }

    @Override
    public void onStartAsync(AsyncEvent event) {
      // not restarted
    }
  }
}
