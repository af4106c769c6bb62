package io.activityservice.app.support;

/** Sample payloads shared by the API tests. */
public final class Events {

  public static final String READING_TYPE =
      """
      {"type": "com.example.meter.reading", "description": "Smart meter reading", "owner": "grid-team",
       "schema": {"type": "object", "required": ["meter", "value"],
                  "properties": {"meter": {"type": "string"}, "value": {"type": "number"}}}}""";

  private Events() {}

  public static String reading(String id, String meter, Object value) {
    String v = value instanceof String s ? "\"" + s + "\"" : String.valueOf(value);
    return """
        {"specversion": "1.0", "id": "%s", "source": "/meters/%s", "type": "com.example.meter.reading",
         "datacontenttype": "application/json", "data": {"meter": "%s", "value": %s}}"""
        .formatted(id, meter, meter, v);
  }

  public static String subscription(String name, String target) {
    return """
        {"name": "%s", "pattern": {"type": ["com.example.meter.reading"], "data": {"value": [{"numeric": [">", 100]}]}},
         "target": "%s"}"""
        .formatted(name, target);
  }
}
