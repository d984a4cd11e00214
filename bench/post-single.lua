-- One reading a request, as a device sends it: no timestamp, so the server
-- stamps it with its receive time. Requests go round-robin to 64 sensors,
-- as from a house full of devices: one sensor can take at most 1,000
-- receive-time readings a second, since they are kept to the millisecond and
-- never collide (a reading on a taken millisecond moves on by 1 ms).
local dir = debug.getinfo(1, "S").source:match("^@(.*/)") or "./"
dofile(dir .. "report.lua")

wrk.method = "POST"
wrk.body = '{"value": 23.5}'
wrk.headers["Content-Type"] = "application/json"
wrk.headers["Authorization"] = "Bearer " .. (os.getenv("SENSEI_TOKEN") or "")

local counter = math.random(0, 63)
request = function()
    counter = (counter + 1) % 64
    return wrk.format(nil, "/sensors/device_" .. counter .. "/data")
end
