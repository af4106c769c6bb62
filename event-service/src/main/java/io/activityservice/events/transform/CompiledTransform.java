package io.activityservice.events.transform;

import com.dashjoin.jsonata.JException;
import com.dashjoin.jsonata.Jsonata;
import com.fasterxml.jackson.core.JsonProcessingException;
import io.activityservice.events.json.Json;
import io.activityservice.events.model.RoutableEvent;
import io.activityservice.events.problem.InvalidInputException;
import io.cloudevents.CloudEvent;
import io.cloudevents.core.builder.CloudEventBuilder;
import io.cloudevents.types.Time;
import java.io.IOException;
import java.io.OutputStream;
import java.lang.management.ManagementFactory;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * A subscription's {@link Transform}, compiled once when the subscription is created or loaded,
 * applied once per delivery. The language is JSONata (the dashjoin port, JSONata 2.x semantics;
 * docs/transformations.md says why), evaluated over the event's structured-mode JSON.
 *
 * <p><b>What it produces.</b> The {@code data} expression's value becomes the data: a string is
 * sent as that text ({@code text/plain; charset=utf-8} unless a {@code datacontenttype} expression
 * says otherwise), any other value as JSON ({@code application/json}); no value means no data. Each
 * attribute expression's value (a string, number or boolean) replaces that attribute or extension;
 * no value removes an optional one. {@code id} and {@code specversion} cannot be changed (the id is
 * what consumers and the service deduplicate on).
 *
 * <p><b>Sandbox.</b> The engine registers only JSONata's own functions, none of which reaches
 * files, network, reflection, the environment or the clock beyond {@code $now()}/{@code $millis()};
 * {@code $eval} evaluates JSONata within the same bounds. Each evaluation runs in a fresh frame
 * with the engine's time and depth bound ({@code Frame.setRuntimeBounds}), a bound on the bytes the
 * thread allocates (read from the JVM's per-thread counter on each step of the evaluation), and a
 * bound on the serialized output. {@code $pad}, whose built-in version takes time quadratic in its
 * width inside one step (100,000 characters: 2 s here), is replaced by a linear one bounded by the
 * output size.
 *
 * <p>Thread-safe: the engine keeps per-evaluation state in the expression object, so each thread
 * evaluates its own copy (parsed again from the checked text on a thread's first use).
 */
public final class CompiledTransform {

  /** Attributes a transformation may not set. */
  private static final Set<String> FIXED = Set.of("id", "specversion", "data", "data_base64");

  private static final com.sun.management.ThreadMXBean THREADS =
      (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

  /**
   * Writes results: JSONata's {@code null} literal is a marker object, written as JSON {@code
   * null}.
   */
  private static final com.fasterxml.jackson.databind.ObjectMapper OUTPUT =
      Json.MAPPER
          .copy()
          .registerModule(
              new com.fasterxml.jackson.databind.module.SimpleModule("jsonata-values")
                  .addSerializer(nullSerializer())
                  .addSerializer(functionSerializer(Jsonata.JFunction.class))
                  .addSerializer(
                      functionSerializer(engineClass("com.dashjoin.jsonata.Parser$Symbol"))));

  private final Transform source;
  private final TransformLimits limits;
  private final Expression data;
  private final Map<String, Expression> attributes;
  private final OutputCheck check;

  private CompiledTransform(
      Transform source,
      TransformLimits limits,
      Expression data,
      Map<String, Expression> attributes,
      OutputCheck check) {
    this.check = check;
    this.source = source;
    this.limits = limits;
    this.data = data;
    this.attributes = attributes;
  }

  /**
   * Compiles a transformation; {@code null} for none or an empty one.
   *
   * @throws InvalidInputException naming {@code transform.data} or {@code
   *     transform.attributes.<name>}, with the position of a syntax error
   */
  public static CompiledTransform compile(Transform transform, TransformLimits limits) {
    return compile(transform, limits, OutputCheck.NONE);
  }

  /**
   * Compiles a transformation whose results {@code check} accepts or refuses; {@code null} for none
   * or an empty one.
   *
   * @throws InvalidInputException naming {@code transform.data} or {@code
   *     transform.attributes.<name>}, with the position of a syntax error
   */
  public static CompiledTransform compile(
      Transform transform, TransformLimits limits, OutputCheck check) {
    if (transform == null || transform.isEmpty()) {
      return null;
    }
    Expression data =
        transform.data() == null
            ? null
            : Expression.compile("transform.data", transform.data(), limits);
    Map<String, Expression> attributes = new LinkedHashMap<>();
    for (Map.Entry<String, String> a : transform.attributes().entrySet()) {
      String name = a.getKey();
      String field = "transform.attributes." + name;
      if (FIXED.contains(name)) {
        throw new InvalidInputException(
            field,
            "cannot be transformed: id and specversion stay as received (consumers deduplicate on"
                + " the id), and the data is transform.data");
      }
      if (name.isEmpty()
          || name.length() > 20
          || !name.chars().allMatch(c -> (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'))) {
        throw new InvalidInputException(
            field,
            "is not a CloudEvents attribute name: 1-20 lower-case letters or digits, e.g. type,"
                + " subject or an extension such as tenant");
      }
      if (a.getValue() == null || a.getValue().isBlank()) {
        throw new InvalidInputException(field, "is required: a JSONata expression");
      }
      attributes.put(name, Expression.compile(field, a.getValue(), limits));
    }
    return new CompiledTransform(transform, limits, data, Map.copyOf(attributes), check);
  }

  /** The transformation as written. */
  public Transform source() {
    return source;
  }

  /**
   * The event this transformation makes of {@code event}. Never returns {@code null}.
   *
   * @throws TransformException with the reason to dead-letter the delivery with
   */
  public CloudEvent apply(RoutableEvent event) {
    Object input = Json.MAPPER.convertValue(event.json(), Object.class);
    Budget budget = new Budget(limits);
    CloudEvent original = event.event();
    CloudEventBuilder out = CloudEventBuilder.v1(original);
    String contentType = original.getDataContentType();
    for (Map.Entry<String, Expression> a : attributes.entrySet()) {
      Object value = a.getValue().evaluate(input, budget);
      setAttribute(out, a.getKey(), value);
      if (a.getKey().equals("datacontenttype")) {
        contentType = value == null ? null : value.toString();
      }
    }
    if (data != null) {
      boolean typeGiven = attributes.containsKey("datacontenttype");
      Object value = data.evaluate(input, budget);
      if (value == null) {
        out.withoutData();
        if (!typeGiven) {
          out.withoutDataContentType();
        }
      } else if (value instanceof String text) {
        byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
        requireSize("transform.data", bytes.length);
        out.withData(typeGiven ? contentType : "text/plain; charset=utf-8", bytes);
      } else {
        out.withData(typeGiven ? contentType : "application/json", serialize(value));
      }
    }
    CloudEvent result;
    try {
      result = out.build();
    } catch (IllegalStateException e) {
      throw new TransformException("the transformed event is not valid: " + e.getMessage(), e);
    }
    check.check(original, result);
    return result;
  }

  private void setAttribute(CloudEventBuilder out, String name, Object value) {
    String field = "transform.attributes." + name;
    if (value == null) {
      switch (name) {
        case "type", "source" ->
            throw new TransformException(field + " gave no value; " + name + " is required");
        case "subject" -> out.withSubject(null);
        case "time" -> out.withTime(null);
        case "dataschema" -> out.withoutDataSchema();
        case "datacontenttype" -> out.withoutDataContentType();
        default -> out.withoutExtension(name);
      }
      return;
    }
    if (!(value instanceof String || value instanceof Number || value instanceof Boolean)) {
      throw new TransformException(
          field + " gave a " + kind(value) + "; an attribute must be a string, number or boolean");
    }
    String text = value instanceof String s ? s : Json.write(Json.tree(value));
    requireSize(field, text.length());
    try {
      switch (name) {
        case "type" -> out.withType(text);
        case "source" -> out.withSource(URI.create(text));
        case "subject" -> out.withSubject(text);
        case "time" -> out.withTime(Time.parseTime(text));
        case "dataschema" -> out.withDataSchema(URI.create(text));
        case "datacontenttype" -> out.withDataContentType(text);
        default -> {
          if (value instanceof Boolean b) {
            out.withExtension(name, b);
          } else if (value instanceof Number n && n.doubleValue() == n.intValue()) {
            out.withExtension(name, n.intValue());
          } else {
            out.withExtension(name, text);
          }
        }
      }
    } catch (RuntimeException e) {
      throw new TransformException(field + " gave an invalid " + name + ": " + e.getMessage(), e);
    }
  }

  private byte[] serialize(Object value) {
    BoundedBytes bytes = new BoundedBytes(limits.maxOutputBytes());
    try {
      OUTPUT.writeValue(bytes, value);
    } catch (IOException e) {
      if (bytes.overflowed) {
        throw new TransformException(
            "transform.data gave more than activity.transforms.max-output-bytes="
                + limits.maxOutputBytes()
                + " bytes of JSON");
      }
      if (e instanceof JsonProcessingException) {
        throw new TransformException(
            "transform.data gave a value that is not JSON (" + kind(value) + ")", e);
      }
      throw new TransformException("transform.data could not be written: " + e.getMessage(), e);
    }
    return bytes.toByteArray();
  }

  private void requireSize(String field, int size) {
    if (size > limits.maxOutputBytes()) {
      throw new TransformException(
          field
              + " gave "
              + size
              + " bytes, more than activity.transforms.max-output-bytes="
              + limits.maxOutputBytes());
    }
  }

  private static String kind(Object value) {
    if (value instanceof Map) {
      return "object";
    }
    if (value instanceof List) {
      return "array";
    }
    return value.getClass().getSimpleName().toLowerCase(Locale.ROOT).contains("function")
            || value.getClass().getName().startsWith("com.dashjoin")
        ? "function"
        : "value";
  }

  @SuppressWarnings({"unchecked", "rawtypes"}) // the marker's class is anonymous
  private static com.fasterxml.jackson.databind.JsonSerializer<Object> nullSerializer() {
    Class type = Jsonata.NULL_VALUE.getClass();
    return new com.fasterxml.jackson.databind.ser.std.StdSerializer<Object>(type) {
      private static final long serialVersionUID = 1L;

      @Override
      public void serialize(
          Object value,
          com.fasterxml.jackson.core.JsonGenerator gen,
          com.fasterxml.jackson.databind.SerializerProvider provider)
          throws IOException {
        gen.writeNull();
      }
    };
  }

  /** Functions (lambdas are parse-tree nodes in this engine) are not data: writing one fails. */
  @SuppressWarnings({"unchecked", "rawtypes"})
  private static com.fasterxml.jackson.databind.JsonSerializer<Object> functionSerializer(
      Class<?> type) {
    return new com.fasterxml.jackson.databind.ser.std.StdSerializer<Object>((Class) type) {
      private static final long serialVersionUID = 1L;

      @Override
      public void serialize(
          Object value,
          com.fasterxml.jackson.core.JsonGenerator gen,
          com.fasterxml.jackson.databind.SerializerProvider provider)
          throws IOException {
        throw com.fasterxml.jackson.databind.JsonMappingException.from(
            gen, "a function is not data");
      }
    };
  }

  private static Class<?> engineClass(String name) {
    try {
      return Class.forName(name, false, Jsonata.class.getClassLoader());
    } catch (ClassNotFoundException e) {
      return Jsonata.JFunction.class; // another engine version: JFunction is covered already
    }
  }

  // ------------------------------------------------------------------ one expression

  /**
   * One thread's parsed copy of an expression, parsed again after {@value #EVALUATIONS_PER_PARSE}
   * evaluations. Why: the engine (dashjoin 0.9.8) keeps the frame of each evaluation with bindings
   * as its environment ({@code Jsonata._evaluate}), and the next evaluation's frame encloses it, so
   * the chain of frames (and every variable lookup, which walks it) grows by one per evaluation:
   * 3,000 evaluations made lookups walk 3,002 frames, and the X2 benchmark path spent most of its
   * CPU in {@code Frame.lookup}. Parsing again bounds the chain; parsing costs far less than 64
   * long lookups.
   */
  static final class Parsed {
    static final int EVALUATIONS_PER_PARSE = 64;

    private final String text;
    private Jsonata engine;
    private int evaluations;

    Parsed(String text, Jsonata first) {
      this.text = text;
      this.engine = first;
    }

    /** The copy to evaluate with next. */
    Jsonata next() {
      if (engine == null || evaluations == EVALUATIONS_PER_PARSE) {
        engine = Jsonata.jsonata(text);
        evaluations = 0;
      }
      evaluations++;
      return engine;
    }
  }

  /** One checked expression; each thread evaluates its own parsed copy (engine state). */
  private static final class Expression {
    private final String field;
    private final TransformLimits limits;
    private final ThreadLocal<Parsed> parsed;

    private Expression(String field, String text, TransformLimits limits, Jsonata first) {
      this.field = field;
      this.limits = limits;
      this.parsed = ThreadLocal.withInitial(() -> new Parsed(text, null));
      this.parsed.set(new Parsed(text, first));
    }

    static Expression compile(String field, String text, TransformLimits limits) {
      if (text.length() > limits.maxExpressionLength()) {
        throw new InvalidInputException(
            field,
            "is "
                + text.length()
                + " characters; at most activity.transforms.max-expression-length="
                + limits.maxExpressionLength());
      }
      LiteralRanges.check(field, text, limits);
      try {
        return new Expression(field, text, limits, Jsonata.jsonata(text));
      } catch (JException e) {
        throw new InvalidInputException(
            field,
            "is not a valid JSONata expression: "
                + e.getMessage()
                + (e.getLocation() >= 0 ? " (at position " + e.getLocation() + ")" : ""));
      } catch (RuntimeException | StackOverflowError e) {
        throw new InvalidInputException(
            field, "is not a valid JSONata expression (the parser gave up on it)");
      }
    }

    /** The value, or {@code null} when the expression gives none. */
    Object evaluate(Object input, Budget budget) {
      Jsonata expression = parsed.get().next();
      Jsonata.Frame frame = expression.createFrame();
      long remaining = budget.remainingMillis();
      if (remaining <= 0) {
        throw new TransformException(
            field + " not evaluated: the transformation's time budget is spent");
      }
      frame.setRuntimeBounds(remaining, limits.maxDepth());
      budget.guard(frame);
      frame.bind(
          "pad",
          Jsonata.function(
              "pad",
              (Jsonata.Fn3<String, Number, String, String>) (s, w, c) -> pad(s, w, c, limits),
              "<s-ns?:s>"));
      try {
        Object value = expression.evaluate(input, frame);
        return value == Jsonata.NULL_VALUE ? null : value;
      } catch (JException e) {
        throw new TransformException(field + " failed: " + budget.explain(e), e);
      } catch (StackOverflowError e) {
        throw new TransformException(field + " failed: it nests too deeply", e);
      } catch (RuntimeException e) {
        throw new TransformException(field + " failed: " + budget.explain(e), e);
      }
    }
  }

  /** JSONata's {@code $pad} in linear time, its width bounded by the output size. */
  static String pad(String s, Number width, String pad, TransformLimits limits) {
    if (s == null) {
      return null;
    }
    int w = width == null ? 0 : (int) Math.max(Integer.MIN_VALUE, width.doubleValue());
    if (Math.abs((long) w) > limits.maxOutputBytes()) {
      throw new JException(
          "$pad width "
              + width
              + " is beyond activity.transforms.max-output-bytes="
              + limits.maxOutputBytes(),
          -1);
    }
    String with = pad == null || pad.isEmpty() ? " " : pad;
    int length = s.codePointCount(0, s.length());
    int missing = Math.abs(w) - length;
    if (missing <= 0) {
      return s;
    }
    StringBuilder filler = new StringBuilder();
    int[] points = with.codePoints().toArray();
    for (int i = 0; i < missing; i++) {
      filler.appendCodePoint(points[i % points.length]);
    }
    return w > 0 ? s + filler : filler + s;
  }

  // ------------------------------------------------------------------ bounds

  /**
   * One evaluation's budget: its deadline and the bytes its thread may allocate, checked on each
   * step the engine takes (its entry callback, chained after the engine's own time and depth
   * check).
   */
  private static final class Budget {
    private final long deadlineNanos;
    private final long allocationLimit;
    private final long allocatedAtStart;
    private final TransformLimits limits;
    private boolean overAllocated;

    Budget(TransformLimits limits) {
      this.limits = limits;
      this.deadlineNanos = System.nanoTime() + limits.timeout().toNanos();
      this.allocatedAtStart = THREADS.getCurrentThreadAllocatedBytes();
      this.allocationLimit = limits.maxAllocatedBytes();
    }

    long remainingMillis() {
      return Math.max(0, (deadlineNanos - System.nanoTime()) / 1_000_000);
    }

    /**
     * Chains an allocation check after the engine's callback. The callback's parameter type is not
     * public in the engine, so the chain is a dynamic proxy of its public interface.
     */
    void guard(Jsonata.Frame frame) {
      Object engine = frame.lookup("__evaluate_entry");
      Jsonata.EntryCallback chained =
          (Jsonata.EntryCallback)
              Proxy.newProxyInstance(
                  CompiledTransform.class.getClassLoader(),
                  new Class<?>[] {Jsonata.EntryCallback.class},
                  (proxy, method, args) -> onEntry(engine, method, args));
      frame.setEvaluateEntryCallback(chained);
    }

    private Object onEntry(Object engine, Method method, Object[] args) throws Throwable {
      if (method.getDeclaringClass() == Object.class) {
        return switch (method.getName()) {
          case "hashCode" -> System.identityHashCode(this);
          case "equals" -> args[0] == this;
          default -> "transform budget";
        };
      }
      if (engine != null) {
        try {
          method.invoke(engine, args);
        } catch (InvocationTargetException e) {
          throw e.getCause();
        }
      }
      if (THREADS.getCurrentThreadAllocatedBytes() - allocatedAtStart > allocationLimit) {
        overAllocated = true;
        throw new JException(
            "allocated more than activity.transforms.max-allocated-bytes=" + allocationLimit, -1);
      }
      return null;
    }

    String explain(RuntimeException e) {
      StringBuilder all = new StringBuilder();
      for (Throwable t = e; t != null && all.length() < 4096; t = t.getCause()) {
        all.append(' ').append(t.getMessage());
      }
      String message = all.toString().trim();
      if (overAllocated) {
        return "allocated more than activity.transforms.max-allocated-bytes=" + allocationLimit;
      }
      if (message.contains("timeout") || System.nanoTime() - deadlineNanos > 0) {
        return "took longer than activity.transforms.timeout=" + limits.timeout();
      }
      if (message.contains("Stack overflow") || message.contains("depth")) {
        return "nested deeper than activity.transforms.max-depth=" + limits.maxDepth();
      }
      return message.length() > 300 ? message.substring(0, 300) + "…" : message;
    }
  }

  private static final class TooLarge extends IOException {
    private static final long serialVersionUID = 1L;

    TooLarge() {
      super("output too large");
    }
  }

  /** Collects bytes and fails past a bound, so a huge result is never written whole. */
  private static final class BoundedBytes extends OutputStream {
    private final int max;
    private byte[] buffer = new byte[256];
    private boolean overflowed;
    private int size;

    BoundedBytes(int max) {
      this.max = max;
    }

    @Override
    public void write(int b) throws IOException {
      ensure(1);
      buffer[size++] = (byte) b;
    }

    @Override
    public void write(byte[] b, int off, int len) throws IOException {
      ensure(len);
      System.arraycopy(b, off, buffer, size, len);
      size += len;
    }

    private void ensure(int more) throws TooLarge {
      if ((long) size + more > max) {
        overflowed = true;
        throw new TooLarge();
      }
      if (size + more > buffer.length) {
        buffer = java.util.Arrays.copyOf(buffer, Math.min(max, Math.max(size + more, size * 2)));
      }
    }

    byte[] toByteArray() {
      return java.util.Arrays.copyOf(buffer, size);
    }
  }
}
