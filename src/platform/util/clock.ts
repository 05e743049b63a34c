// A monotonic clock in milliseconds, for deadlines and durations inside one process.
//
// The performance API's `now` would do, but its first use loads Node's whole performance API (a dozen
// internal modules, ~2 ms of every command's start-up). `process.hrtime` is there from the start. The
// values are comparable only with each other (not with the performance API's, nor a PerformanceEntry's).

/** Milliseconds on a monotonic clock, with sub-millisecond precision. */
export function monotonicMs(): number {
  const [seconds, nanoseconds] = process.hrtime()
  return seconds * 1e3 + nanoseconds / 1e6
}
