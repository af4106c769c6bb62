package io.activityservice.rules.action;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;

/** The last {@code capacity} executions of one rule set, newest first. Thread-safe. */
public final class ExecutionHistory {

  private final int capacity;
  private final ArrayDeque<ExecutionRecord> records;

  public ExecutionHistory(int capacity) {
    this.capacity = Math.max(1, capacity);
    this.records = new ArrayDeque<>(this.capacity);
  }

  public synchronized void add(ExecutionRecord record) {
    if (records.size() == capacity) {
      records.removeLast();
    }
    records.addFirst(record);
  }

  /** A snapshot, newest first. */
  public synchronized List<ExecutionRecord> recent() {
    return new ArrayList<>(records);
  }
}
