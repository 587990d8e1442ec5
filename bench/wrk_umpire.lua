-- wrk load script for bench/bench_http.py:  wrk ... -s bench/wrk_umpire.lua URL -- MODE [FILE [THREADS]]
--   health  GET /v1/health
--   get     GET the path in FILE's place (bench/bench_overhead.py: GET /bare, GET /v1/games)
--   play    POST /v1/games/catchup/play with the body in FILE (a stateless verdict), or to PATH
--           when given after FILE (bench/bench_overhead.py: the same body to the bare app's POST /bare)
--   move    POST /v1/matches/{id}/moves: FILE holds the cells to play, one per turn, and the
--           matches ("id token0 token1" per line); each wrk thread takes its share of the
--           matches and always submits the next legal move of a match not in flight, reading
--           the match id and the new ply back from each answer.
--           When every match is in flight or played out it asks GET /v1/health instead, and counts
--           it: "fallbacks" in the figures (a run with any is short of matches, not a move's figure).
-- done() prints one JSON line with the figures bench_http.py reads.

local mode, fixed, cells
local ready = {}
local threads = 0
local all_threads = {}
fallbacks = 0

function setup(thread)
  thread:set("tid", threads)
  threads = threads + 1
  all_threads[#all_threads + 1] = thread
end

local function read_lines(path)
  local out = {}
  for line in io.lines(path) do out[#out + 1] = line end
  return out
end

function init(args)
  mode = args[1]
  if mode == "health" then
    fixed = wrk.format("GET", "/v1/health")
  elseif mode == "get" then
    fixed = wrk.format("GET", args[2])
  elseif mode == "play" then
    local f = assert(io.open(args[2]))
    local body = f:read("*a")
    f:close()
    fixed = wrk.format("POST", args[3] or "/v1/games/catchup/play", { ["Content-Type"] = "application/json" }, body)
  else
    local lines = read_lines(args[2])
    local nthreads = tonumber(args[3])
    cells = {}
    for cell in lines[1]:gmatch("%S+") do cells[#cells + 1] = cell end
    for i = 2, #lines do
      if (i - 2) % nthreads == tid then
        local id, t0, t1 = lines[i]:match("(%S+) (%S+) (%S+)")
        ready[#ready + 1] = { id = id, tokens = { t0, t1 }, ply = 0 }
      end
    end
    by_id = {}
    for _, m in ipairs(ready) do by_id[m.id] = m end
  end
end

function request()
  if mode ~= "move" then return fixed end
  local m = table.remove(ready, 1)
  if m == nil then -- every match in flight or played out
    fallbacks = fallbacks + 1
    return wrk.format("GET", "/v1/health")
  end
  local body = '{"move":"' .. cells[m.ply + 1] .. '","ply":' .. m.ply .. '}'
  local headers = { ["Content-Type"] = "application/json", ["Authorization"] = "Bearer " .. m.tokens[m.ply % 2 + 1] }
  return wrk.format("POST", "/v1/matches/" .. m.id .. "/moves", headers, body)
end

function response(status, headers, body)
  if mode ~= "move" or status ~= 200 then return end
  local id = body:match('"match_id":"([^"]+)"')
  local ply = tonumber(body:match('"ply":(%d+)}$'))
  local m = id and by_id[id]
  if m and ply then
    m.ply = ply
    if ply < #cells - 1 then ready[#ready + 1] = m end
  end
end

function done(summary, latency, requests)
  local e = summary.errors
  local fell = 0
  for _, t in ipairs(all_threads) do fell = fell + (t:get("fallbacks") or 0) end
  io.write(string.format(
    '{"requests":%d,"duration_us":%d,"socket_errors":%d,"non2xx":%d,"fallbacks":%d,"p50_ms":%.3f,"p90_ms":%.3f,"p99_ms":%.3f,"max_ms":%.3f}\n',
    summary.requests, summary.duration, e.connect + e.read + e.write + e.timeout, e.status, fell,
    latency:percentile(50) / 1000, latency:percentile(90) / 1000, latency:percentile(99) / 1000, latency.max / 1000))
end
