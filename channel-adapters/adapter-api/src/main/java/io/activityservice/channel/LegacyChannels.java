package io.activityservice.channel;

import io.cloudevents.CloudEvent;

/**
 * Tells whether an {@link OutboundChannel} class overrides neither {@code send} method, which would
 * make the two defaults call each other forever. Looked up once per class.
 */
final class LegacyChannels {

  private static final ClassValue<Boolean> ONLY_DEFAULTS =
      new ClassValue<>() {
        @Override
        protected Boolean computeValue(Class<?> type) {
          try {
            return type.getMethod("send", CloudEvent.class).getDeclaringClass()
                    == OutboundChannel.class
                && type.getMethod("send", OutboundEvent.class).getDeclaringClass()
                    == OutboundChannel.class;
          } catch (NoSuchMethodException e) {
            return false;
          }
        }
      };

  private LegacyChannels() {}

  static boolean implementsOnlyTheDefaults(Class<?> type) {
    return ONLY_DEFAULTS.get(type);
  }
}
