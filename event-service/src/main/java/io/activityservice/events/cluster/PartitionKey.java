package io.activityservice.events.cluster;

import com.fasterxml.jackson.databind.JsonNode;
import io.activityservice.events.model.RoutableEvent;
import io.activityservice.events.problem.InvalidInputException;
import java.util.regex.Pattern;

/**
 * A partition key expression of a detector or rule set ({@code "partitionBy"}), or of a
 * subscription's ordering ({@code "ordering.key"}): a CloudEvents attribute or extension ({@code
 * subject}, {@code source}, {@code tenant}) or a path into the JSON data ({@code data.meter},
 * {@code data.site.id}). Evaluated on the event's structured JSON view; a missing value gives
 * {@link #NONE}, so those events share one partition.
 */
public final class PartitionKey {

  /** The key of events that have no value at the expression's path. */
  public static final String NONE = "(none)";

  private static final Pattern EXPRESSION =
      Pattern.compile("[a-z0-9]{1,20}(\\.[A-Za-z0-9_\\-]{1,64}){0,8}");

  private final String expression;
  private final String[] path;

  private PartitionKey(String expression) {
    this.expression = expression;
    this.path = expression.split("\\.");
  }

  /**
   * Parses an expression; {@code null} or blank means no partitioning.
   *
   * @throws InvalidInputException naming {@code partitionBy}
   */
  public static PartitionKey parse(String expression) {
    return parse(expression, "partitionBy");
  }

  /**
   * Parses an expression given in the request field {@code field}; {@code null} or blank gives
   * {@code null}.
   *
   * @throws InvalidInputException naming {@code field}
   */
  public static PartitionKey parse(String expression, String field) {
    if (expression == null || expression.isBlank()) {
      return null;
    }
    String e = expression.trim();
    if (e.length() > 255 || !EXPRESSION.matcher(e).matches()) {
      throw new InvalidInputException(
          field,
          "must be a CloudEvents attribute or extension name (e.g. subject)"
              + " or a path into the data (e.g. data.meter): lower-case attribute, then dot-separated names");
    }
    if (e.indexOf('.') > 0 && !e.startsWith("data.")) {
      throw new InvalidInputException(
          field,
          "only data has fields: use an attribute name such as subject,"
              + " or a path such as data.meter");
    }
    return new PartitionKey(e);
  }

  public String expression() {
    return expression;
  }

  /** The key of an event: the text of the value at the path, or {@link #NONE}. */
  public String of(RoutableEvent event) {
    JsonNode node = event.json();
    for (String part : path) {
      node = node == null ? null : node.get(part);
    }
    if (node == null || node.isNull() || node.isContainerNode()) {
      return NONE;
    }
    String text = node.asText();
    return text.isEmpty() ? NONE : text;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof PartitionKey k && k.expression.equals(expression);
  }

  @Override
  public int hashCode() {
    return expression.hashCode();
  }

  @Override
  public String toString() {
    return expression;
  }
}
