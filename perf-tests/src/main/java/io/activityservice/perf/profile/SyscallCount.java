package io.activityservice.perf.profile;

import java.util.Map;

/**
 * System calls of one burst.
 *
 * @param process the traced process
 * @param events events relayed
 * @param counts kind → calls
 * @param error why not counted, or null
 */
public record SyscallCount(String process, long events, Map<String, Long> counts, String error) {}
