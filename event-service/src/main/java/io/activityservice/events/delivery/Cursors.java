package io.activityservice.events.delivery;

import io.activityservice.events.problem.InvalidInputException;
import java.nio.charset.StandardCharsets;
import java.util.Base64;

/** Opaque page cursors: base64url of {@code <epoch ms>:<id>}. */
final class Cursors {

  private Cursors() {}

  static String encode(DeadLetterStore.Cursor c) {
    return Base64.getUrlEncoder()
        .withoutPadding()
        .encodeToString((c.deadLetteredAt() + ":" + c.id()).getBytes(StandardCharsets.UTF_8));
  }

  /** Decodes a cursor; {@code null} or blank means the first page. */
  static DeadLetterStore.Cursor decode(String cursor) {
    if (cursor == null || cursor.isBlank()) {
      return null;
    }
    try {
      String text =
          new String(Base64.getUrlDecoder().decode(cursor.trim()), StandardCharsets.UTF_8);
      int colon = text.indexOf(':');
      return new DeadLetterStore.Cursor(
          Long.parseLong(text.substring(0, colon)), text.substring(colon + 1));
    } catch (IllegalArgumentException | StringIndexOutOfBoundsException e) {
      throw new InvalidInputException(
          "cursor", "is not a cursor this service issued; use nextCursor of the previous page");
    }
  }
}
