-- Shared by the bench's wrk scripts: after the run, one machine-readable line
-- for bench/run.sh (latencies in microseconds; socket errors are connect,
-- read, write and timeout errors together; non2xx counts non-2xx/3xx answers).
function done(summary, latency, requests)
  local errors = summary.errors
  io.write(string.format(
    "bench requests=%d duration_us=%d rps=%.2f p50_us=%.0f p99_us=%.0f non2xx=%d socket_errors=%d\n",
    summary.requests, summary.duration, summary.requests / summary.duration * 1e6,
    latency:percentile(50), latency:percentile(99), errors.status,
    errors.connect + errors.read + errors.write + errors.timeout))
end
