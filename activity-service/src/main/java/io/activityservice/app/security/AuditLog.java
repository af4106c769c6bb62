package io.activityservice.app.security;

import io.activityservice.events.problem.InvalidInputException;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.OffsetDateTime;
import java.util.Base64;
import java.util.List;
import java.util.UUID;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.web.context.request.RequestAttributes;
import org.springframework.web.context.request.RequestContextHolder;

/**
 * Who changed what: one entry per create, update, delete or redrive through the management API,
 * successful or not, recorded by the security filter chain after the answer is known. Entries never
 * hold secrets: API keys appear by id, channel URIs without credentials or query.
 */
public class AuditLog {

  /**
   * Request attribute a controller sets when the resource id is neither in the path nor in a
   * Location header.
   */
  public static final String RESOURCE_ID_ATTRIBUTE = AuditLog.class.getName() + ".resourceId";

  /**
   * One entry.
   *
   * @param id entry id
   * @param time when the request was answered
   * @param actor who: {@code key:<id>}, {@code jwt:<subject>} or {@code anonymous}
   * @param action {@code create}, {@code update}, {@code delete}, {@code revoke} or {@code redrive}
   * @param resourceKind {@code event-type}, {@code subscription}, {@code channel}, {@code
   *     detector}, {@code rule}, {@code api-key} or {@code dead-letter}
   * @param resourceId the resource's id (type name, subscription id, channel URI, …), or null if
   *     unknown
   * @param outcome {@code success} (2xx), {@code denied} (403) or {@code failed} (another status)
   * @param status the HTTP status of the answer
   */
  public record Entry(
      String id,
      OffsetDateTime time,
      String actor,
      String action,
      String resourceKind,
      String resourceId,
      String outcome,
      int status) {}

  /** A page, newest first; {@code nextCursor} is null on the last page. */
  public record Page(List<Entry> items, String nextCursor) {}

  private final AuditRepository repository;
  private final Clock clock;

  /** An audit log on the {@code audit_event} table. */
  public AuditLog(JdbcClient jdbc, Clock clock) {
    this(new AuditRepository(jdbc), clock);
  }

  AuditLog(AuditRepository repository, Clock clock) {
    this.repository = repository;
    this.clock = clock;
  }

  /** Records what a request did. */
  public Entry record(
      String actor, String action, String resourceKind, String resourceId, int status) {
    String outcome = status / 100 == 2 ? "success" : status == 403 ? "denied" : "failed";
    Entry e =
        new Entry(
            UUID.randomUUID().toString(),
            OffsetDateTime.now(clock),
            actor,
            action,
            resourceKind,
            resourceId == null ? null : truncate(resourceId, 2048),
            outcome,
            status);
    repository.insert(e);
    return e;
  }

  /**
   * A page of the log, newest first.
   *
   * @throws InvalidInputException naming {@code limit} or {@code cursor}
   */
  public Page page(String cursor, int limit) {
    if (limit < 1 || limit > 1000) {
      throw new InvalidInputException("limit", "must be between 1 and 1000");
    }
    List<Entry> items = repository.page(decode(cursor), limit + 1);
    String next = null;
    if (items.size() > limit) {
      items = items.subList(0, limit);
      Entry last = items.get(limit - 1);
      next = encode(new AuditRepository.Cursor(last.time().toInstant().toEpochMilli(), last.id()));
    }
    return new Page(List.copyOf(items), next);
  }

  /**
   * Tells the audit log the id of the resource the current request acts on (when the path does not
   * say it).
   */
  public static void resourceId(String id) {
    RequestAttributes attributes = RequestContextHolder.getRequestAttributes();
    if (attributes != null && id != null) {
      attributes.setAttribute(RESOURCE_ID_ATTRIBUTE, id, RequestAttributes.SCOPE_REQUEST);
    }
  }

  // Same opaque form as the dead-letter cursors: base64url of "<epoch ms>:<id>".
  private static String encode(AuditRepository.Cursor c) {
    return Base64.getUrlEncoder()
        .withoutPadding()
        .encodeToString((c.at() + ":" + c.id()).getBytes(StandardCharsets.UTF_8));
  }

  private static AuditRepository.Cursor decode(String cursor) {
    if (cursor == null || cursor.isBlank()) {
      return null;
    }
    try {
      String text =
          new String(Base64.getUrlDecoder().decode(cursor.trim()), StandardCharsets.UTF_8);
      int colon = text.indexOf(':');
      return new AuditRepository.Cursor(
          Long.parseLong(text.substring(0, colon)), text.substring(colon + 1));
    } catch (IllegalArgumentException | StringIndexOutOfBoundsException e) {
      throw new InvalidInputException(
          "cursor",
          "is not a cursor this service issued; use nextCursor of the previous" + " page");
    }
  }

  private static String truncate(String s, int max) {
    return s.length() <= max ? s : s.substring(0, max);
  }
}
