-- One line-protocol point a request to POST /write?db=… (the URL's path and
-- query): InfluxDB's single writes, the peer of post-single.lua. No
-- timestamp, so the server stamps the point with its receive time; 64
-- series, round-robin, as post-single.lua's 64 sensors. The token goes as
-- `Authorization: Token` (InfluxDB without auth ignores it).
local dir = debug.getinfo(1, "S").source:match("^@(.*/)") or "./"
dofile(dir .. "report.lua")

wrk.method = "POST"
wrk.headers["Content-Type"] = "text/plain; charset=utf-8"
wrk.headers["Authorization"] = "Token " .. (os.getenv("SENSEI_TOKEN") or "")

local series = 64
local requests = {}
local counter = 0

function init(args)
  for i = 0, series - 1 do
    requests[i + 1] = wrk.format(nil, nil, nil, "device_" .. i .. " value=23.5")
  end
  counter = math.random(0, series - 1)
end

function request()
  counter = counter % series + 1
  return requests[counter]
end
