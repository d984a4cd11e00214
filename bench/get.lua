-- GET with the bench's bearer token ($SENSEI_TOKEN): the hello ceiling, the
-- 200-bucket year query and GET /sensors. Path and query come from wrk's URL.
local dir = debug.getinfo(1, "S").source:match("^@(.*/)") or "./"
dofile(dir .. "report.lua")

wrk.headers["Authorization"] = "Bearer " .. (os.getenv("SENSEI_TOKEN") or "")
