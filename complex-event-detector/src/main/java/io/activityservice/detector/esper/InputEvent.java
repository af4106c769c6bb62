package io.activityservice.detector.esper;

import java.util.HashMap;

/**
 * The Esper view of one CloudEvent (a Map event): {@code id}, {@code source}, {@code type}, {@code subject},
 * {@code time} (epoch milliseconds), {@code hopcount}, {@code extensions} and {@code data}. Its own class so
 * that output rows can recognise input events (pattern tags, {@code window(*)}) and read their id and hop
 * count. Never modified after it is sent into a runtime.
 */
final class InputEvent extends HashMap<String, Object> {

  private static final long serialVersionUID = 1L;

  InputEvent() {
    super(16);
  }

  String id() {
    return (String) get("id");
  }

  int hopCount() {
    Object h = get("hopcount");
    return h instanceof Integer i ? i : 0;
  }
}
