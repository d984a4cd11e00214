-- Batches of 1,000 line-protocol points to POST /write?db=…&precision=ms
-- (the URL's path and query), to InfluxDB and to sensei-server alike: the
-- line-protocol counterpart of post-batch.lua, with the same values and new
-- timestamps in every request, so each point is a new one.
--
-- A point's timestamp is PREFIX followed by its three-digit index, in
-- milliseconds, where PREFIX = 1000000000 + thread * 200000 + requests sent by
-- this thread: seconds from 2001-09-09 on, one second of 1,000 points a
-- request, each wrk thread in its own range. A request covers one second, so
-- InfluxDB's points fall in a few of its week-long shards, as a live
-- Telegraf's would. Kept as fragments, as post-batch.lua is.
local dir = debug.getinfo(1, "S").source:match("^@(.*/)") or "./"
dofile(dir .. "report.lua")

wrk.method = "POST"
wrk.headers["Content-Type"] = "text/plain; charset=utf-8"
wrk.headers["Authorization"] = "Token " .. (os.getenv("SENSEI_TOKEN") or "")

local items = 1000
local requestsPerThread = 200000
-- ROUND (bench/run.sh's rounds in alternation, from 1): timestamps from 23
-- hours ago on instead, newer than what the server's compactor packs (a day
-- old), so one round leaves it no work in the next; 4,000 requests (seconds)
-- of room a thread, 4 threads a round, 5 rounds at most. And a measurement of
-- their own, so a round's points go to a sensor of their own and leave the
-- line phase's sensor as the phase alone makes it.
local round = tonumber(os.getenv("ROUND") or "0")
local roundStart = os.time() - 23 * 3600
local measurement = round > 0 and "round" or "batch"

local threads = 0
function setup(thread)
  thread:set("bench_thread", threads)
  threads = threads + 1
end

local parts, slots, sent = {}, {}, 0

function init(args)
  for i = 0, items - 1 do
    parts[#parts + 1] = string.format("%s value=%d.%d ", measurement, 18 + i % 7, i % 10)
    parts[#parts + 1] = ""
    slots[#slots + 1] = #parts
    parts[#parts + 1] = string.format("%03d\n", i)
  end
end

function request()
  local prefix = round > 0
    and tostring(roundStart + ((round - 1) * 4 + (bench_thread or 0)) * 4000 + sent % 4000)
    or tostring(1000000000 + (bench_thread or 0) * requestsPerThread + sent % requestsPerThread)
  sent = sent + 1
  for k = 1, #slots do
    parts[slots[k]] = prefix
  end
  return wrk.format(nil, nil, nil, table.concat(parts))
end
