-- wrk script for the bench: POSTs one JSON-RPC body and CHECKS every reply body.
-- Args (after `--`): <body file> [authorization header value or "-"] [extra expected substring or "-"]
-- [one extra request header "Name: value", e.g. "A2A-Version: 1.0", or "-"].
-- A reply is bad when its status is not 200, it lacks "result", it contains "error", or it lacks
-- the expected substring. done() prints one machine-readable line: BENCH_RESULT {json}.

local threads = {}

function setup(thread)
  table.insert(threads, thread)
end

function init(args)
  local f = assert(io.open(args[1], "rb"))
  local body = f:read("*a")
  f:close()
  wrk.method = "POST"
  wrk.body = body
  wrk.headers["Content-Type"] = "application/json"
  if args[2] ~= nil and args[2] ~= "-" then
    wrk.headers["Authorization"] = args[2]
  end
  if args[4] ~= nil and args[4] ~= "-" then
    local name, value = string.match(args[4], "^([^:]+):%s*(.*)$")
    assert(name ~= nil, "extra header must be 'Name: value', got " .. args[4])
    wrk.headers[name] = value
  end
  expect = nil
  if args[3] ~= nil and args[3] ~= "-" then
    expect = args[3]
  end
  checked = 0
  bad = 0
  first_bad = ""
end

function response(status, headers, body)
  checked = checked + 1
  local ok = status == 200 and body ~= nil
    and string.find(body, '"result"', 1, true) ~= nil
    and string.find(body, '"error"', 1, true) == nil
    and (expect == nil or string.find(body, expect, 1, true) ~= nil)
  if not ok then
    bad = bad + 1
    if first_bad == "" then
      first_bad = tostring(status) .. " " .. string.sub(body or "", 1, 200)
    end
  end
end

local function json_string(s)
  s = string.gsub(s, '[%c"\\]', function(c)
    return string.format("\\u%04x", string.byte(c))
  end)
  return '"' .. s .. '"'
end

function done(summary, latency, requests)
  local total_checked, total_bad, sample = 0, 0, ""
  for _, t in ipairs(threads) do
    total_checked = total_checked + t:get("checked")
    total_bad = total_bad + t:get("bad")
    local fb = t:get("first_bad")
    if sample == "" and fb ~= nil then sample = fb end
  end
  local e = summary.errors
  local seconds = summary.duration / 1e6
  io.write(string.format(
    'BENCH_RESULT {"requests":%d,"durationUs":%d,"rps":%.2f,"p50us":%d,"p99us":%d,' ..
    '"checked":%d,"badReplies":%d,"connectErrors":%d,"readErrors":%d,"writeErrors":%d,' ..
    '"timeouts":%d,"non2xx":%d,"sampleBad":%s}\n',
    summary.requests, summary.duration, summary.requests / seconds,
    latency:percentile(50), latency:percentile(99),
    total_checked, total_bad, e.connect, e.read, e.write, e.timeout, e.status, json_string(sample)))
end
