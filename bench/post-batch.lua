-- Batches of 1,000 readings with device timestamps, none seen before: each
-- request carries 1,000 new one-second-apart epoch seconds, so the server
-- inserts new rows rather than replacing the same ones (bench/run.sh checks
-- the sensor's count afterwards).
--
-- A reading's timestamp is PREFIX followed by its three-digit index, where
-- PREFIX = 1000000 + thread * 200000 + requests sent by this thread: seconds
-- from 2001-09-09 on, each wrk thread in its own range of 200,000 requests
-- (200 M readings), all in the past. The body is kept as fragments, so a
-- request only swaps in its prefix and joins them: cheap for the load generator,
-- which shares the machine's cores with the server.
local dir = debug.getinfo(1, "S").source:match("^@(.*/)") or "./"
dofile(dir .. "report.lua")

wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
wrk.headers["Authorization"] = "Bearer " .. (os.getenv("SENSEI_TOKEN") or "")

local items = 1000
local requestsPerThread = 200000

local threads = 0
function setup(thread)
  thread:set("bench_thread", threads)
  threads = threads + 1
end

local parts, slots, sent = {}, {}, 0

function init(args)
  parts[#parts + 1] = '{"data":['
  for i = 0, items - 1 do
    parts[#parts + 1] = (i == 0 and "" or ",") .. '{"timestamp":'
    parts[#parts + 1] = ""
    slots[#slots + 1] = #parts
    parts[#parts + 1] = string.format('%03d,"value":%d.%d}', i, 18 + i % 7, i % 10)
  end
  parts[#parts + 1] = "]}"
end

function request()
  local prefix = tostring(1000000 + (bench_thread or 0) * requestsPerThread + sent % requestsPerThread)
  sent = sent + 1
  for k = 1, #slots do
    parts[slots[k]] = prefix
  end
  return wrk.format(nil, nil, nil, table.concat(parts))
end
