// Hand-over between pages within this tab (e.g. "test a pattern with this sample event"). Nothing is persisted.

export const handoff = {
  /** An event to load into the pattern tester. */
  event: null,
  /** A subscription to load into the editor (edit as new). */
  subscription: null,
  /** A new signing secret to show once on the subscription's page. */
  secret: null,
  /** Take a value once. */
  take(name) {
    const v = this[name];
    this[name] = null;
    return v;
  },
};
