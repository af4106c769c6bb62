package io.activityservice.perf.cli;

import picocli.CommandLine;
import picocli.CommandLine.ParameterException;

/**
 * The one way perf-tests' programs read their command lines: picocli on a {@code @Command} object
 * whose {@code @Option} fields carry the names and defaults. Both {@code --name value} and {@code
 * --name=value} work; an option given twice takes its last value, as the scripts rely on; a bad
 * value or an unknown option fails with the message and the usage.
 */
public final class CommandLines {

  private CommandLines() {}

  /**
   * Fills {@code command}'s options from {@code args} for a {@code main}: on {@code --help} prints
   * the usage and exits 0; on bad input prints why and the usage to stderr and exits 2.
   */
  public static <T> T parse(T command, String[] args) {
    try {
      return parseOrThrow(command, args);
    } catch (HelpRequested e) {
      System.out.println(e.getMessage());
      System.exit(0);
    } catch (IllegalArgumentException e) {
      System.err.println(e.getMessage());
      System.exit(2);
    }
    return command;
  }

  /**
   * Fills {@code command}'s options from {@code args}.
   *
   * @throws HelpRequested on {@code -h} / {@code --help} (its message is the usage)
   * @throws IllegalArgumentException on bad input, with the reason and the usage as its message
   */
  public static <T> T parseOrThrow(T command, String[] args) {
    CommandLine cl = commandLine(command);
    try {
      cl.parseArgs(args);
    } catch (ParameterException e) {
      throw new IllegalArgumentException(e.getMessage() + "\n" + cl.getUsageMessage(), e);
    }
    if (cl.isUsageHelpRequested()) {
      throw new HelpRequested(cl.getUsageMessage());
    }
    return command;
  }

  /** The usage text of {@code command}. */
  public static String usage(Object command) {
    return commandLine(command).getUsageMessage();
  }

  /** The parser of perf-tests' command lines: the last of a repeated option wins. */
  static CommandLine commandLine(Object command) {
    return new CommandLine(command).setOverwrittenOptionsAllowed(true);
  }

  /** {@code --help} was asked for; the message is the usage. */
  public static final class HelpRequested extends IllegalArgumentException {
    private static final long serialVersionUID = 1L;

    HelpRequested(String usage) {
      super(usage);
    }
  }
}
