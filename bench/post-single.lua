-- One reading a request, as a device sends it: no timestamp, so the server
-- stamps it with its receive time (those never collide: every 201 is a new row).
local dir = debug.getinfo(1, "S").source:match("^@(.*/)") or "./"
dofile(dir .. "report.lua")

wrk.method = "POST"
wrk.body = '{"value": 23.5}'
wrk.headers["Content-Type"] = "application/json"
wrk.headers["Authorization"] = "Bearer " .. (os.getenv("SENSEI_TOKEN") or "")
