package io.activityservice.perf;

import java.util.Arrays;

/** Command-line options of the by-hand measurements ({@code --name value}), the one parser they share. */
public final class ByHandArgs {

  private ByHandArgs() {
  }

  /** The value after {@code name} in {@code args}, or {@code fallback}. */
  public static String option(String[] args, String name, String fallback) {
    for (int i = 0; i < args.length - 1; i++) {
      if (args[i].equals(name)) {
        return args[i + 1];
      }
    }
    return fallback;
  }

  /** A comma-separated list of integers after {@code name}, or {@code fallback} parsed alike. */
  public static int[] ints(String[] args, String name, String fallback) {
    return Arrays.stream(option(args, name, fallback).split(",")).map(String::trim).mapToInt(Integer::parseInt)
        .toArray();
  }
}
