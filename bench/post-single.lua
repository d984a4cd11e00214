-- One reading a request, as a device sends it: no timestamp, so the server
-- stamps it with its receive time. Requests go round-robin to 64 sensors,
-- as from a house full of devices: one sensor can take at most 1,000
-- receive-time readings a second, since they are kept to the millisecond and
-- never collide (a reading on a taken millisecond moves on by 1 ms).
--
-- The 64 requests are formatted once, in init, and then only handed out:
-- wrk shares the machine's two cores with the server, and formatting a
-- request each time cost it a third more CPU a request than the hello
-- phase's fixed request, CPU the server then lacked.
local dir = debug.getinfo(1, "S").source:match("^@(.*/)") or "./"
dofile(dir .. "report.lua")

wrk.method = "POST"
wrk.body = '{"value": 23.5}'
wrk.headers["Content-Type"] = "application/json"
wrk.headers["Authorization"] = "Bearer " .. (os.getenv("SENSEI_TOKEN") or "")

local sensors = 64
local requests = {}
local counter = 0

function init(args)
  for i = 0, sensors - 1 do
    requests[i + 1] = wrk.format(nil, "/sensors/device_" .. i .. "/data")
  end
  counter = math.random(0, sensors - 1)
end

function request()
  counter = counter % sensors + 1
  return requests[counter]
end
