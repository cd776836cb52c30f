/**
 * The Lua scripts of `redisStore`: each decision (version check, lease check on the server's
 * `TIME`, the write and its bookkeeping) is one script, so it happens in one atomic step. The
 * layout of a run's hash is described on `redisStore`.
 */

/** The server's clock in epoch ms, in a script (Redis 7 replicates a script's effects, so TIME is allowed before writes). */
const NOW = `
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
`;

/**
 * The checks and the bookkeeping every write shares. KEYS: run hash, expiry index, inbox index (a
 * hash of entries by key; its sorted sets are that name + a scope). ARGV: expected
 * version ('' = must be absent), the content (snapshot or head), expiresAt as epoch ms ('' = none),
 * expiresAt as written, TTL seconds ('' = none), run id, '1' if a lease owner writes ('0' =
 * nobody), the owner, lease ms ('0' = none afterwards), the run's pending entries as JSON
 * `[[key, [scope…], entry JSON]…]` (they replace those the run's `pending` field lists), and last
 * (ARGV[#ARGV]) the ids of queued messages the write delivered, as JSON (DESIGN §30: removed from
 * the run's field of the queue hash, KEYS[4]). A write returns {1, newVersion, TIME in ms, what is
 * left queued as JSON or ''}, {0,
 * currentVersion or ''} (stale), {-1, currentVersion} (lease held) or {-2, currentVersion} (an
 * append onto a row stored whole). A hash without lease fields (the first release's) has no lease.
 */
const CHECK = `${NOW}
local run = redis.call('HMGET', KEYS[1], 'version', 'leaseOwner', 'leaseUntil', 'head', 'chunks', 'leaseStop', 'pending')
local current = run[1]
if ARGV[1] == '' then
  if current then return {0, current} end
elseif current ~= ARGV[1] then
  return {0, current or ''}
end
local writer = nil
if ARGV[7] == '1' then writer = ARGV[8] end
if run[2] and run[2] ~= writer and tonumber(run[3]) > now then return {-1, current} end
local version = (tonumber(current) or 0) + 1
`;

const AFTER_WRITE = `
local ms = tonumber(ARGV[9])
if ms > 0 then
  redis.call('HSET', KEYS[1], 'leaseOwner', ARGV[8], 'leaseUntil', now + ms)
else
  redis.call('HDEL', KEYS[1], 'leaseOwner', 'leaseUntil')
end
-- A stop mark stays with its lease: only the holder's own writes that keep the lease keep it.
if ms > 0 and run[6] and run[2] == writer then
  redis.call('HSET', KEYS[1], 'leaseStop', run[6])
else
  redis.call('HDEL', KEYS[1], 'leaseStop')
end
if ARGV[3] == '' then
  redis.call('ZREM', KEYS[2], ARGV[6])
else
  redis.call('ZADD', KEYS[2], ARGV[3], ARGV[6])
end
if run[7] then
  for _, old in ipairs(cjson.decode(run[7])) do
    redis.call('HDEL', KEYS[3], old[1])
    for _, scope in ipairs(old[2]) do redis.call('ZREM', KEYS[3] .. scope, old[1]) end
  end
end
local listed = {}
for _, item in ipairs(cjson.decode(ARGV[10])) do
  redis.call('HSET', KEYS[3], item[1], item[3])
  for _, scope in ipairs(item[2]) do redis.call('ZADD', KEYS[3] .. scope, 0, item[1]) end
  listed[#listed + 1] = {item[1], item[2]}
end
if #listed > 0 then
  redis.call('HSET', KEYS[1], 'pending', cjson.encode(listed))
else
  redis.call('HDEL', KEYS[1], 'pending')
end
if ARGV[5] ~= '' then redis.call('EXPIRE', KEYS[1], ARGV[5]) end
local left = ''
local queued = redis.call('HGET', KEYS[4], ARGV[6])
if queued then
  local drop = {}
  for _, id in ipairs(cjson.decode(ARGV[#ARGV])) do drop[id] = true end
  local kept = {}
  for _, entry in ipairs(cjson.decode(queued)) do
    if not drop[entry.id] then kept[#kept + 1] = entry end
  end
  if #kept > 0 then
    left = cjson.encode(kept)
    redis.call('HSET', KEYS[4], ARGV[6], left)
  else
    redis.call('HDEL', KEYS[4], ARGV[6])
  end
end
return {1, version, now, left}
`;

/** Chunk fields read per HMGET when joining logs. */
const CHUNKS_PER_READ = 500;

/**
 * Reads the first `count` chunks of both logs of the hash KEYS[1] into `messages` and `resolved`,
 * the transcript's from chunk `mfirst` on only (set it before; 1 reads them all).
 * A corrupted count must never make this loop spin (it would block the whole server): it is a whole
 * number no larger than the hash's own field count, or the read is refused.
 */
const READ_CHUNKS = `if not count or count < 0 or count ~= math.floor(count) or count > redis.call('HLEN', KEYS[1]) then
  return redis.error_reply('TURNKIT_CORRUPT_CHUNKS')
end
local messages, resolved = {}, {}
for from = 1, count, ${CHUNKS_PER_READ} do
  local fields = {}
  for i = from, math.min(count, from + ${CHUNKS_PER_READ - 1}) do
    fields[#fields + 1] = 'r' .. i
    if i >= mfirst then fields[#fields + 1] = 'm' .. i end
  end
  local values = redis.call('HMGET', KEYS[1], unpack(fields))
  for j = 1, #values do
    if values[j] then
      if string.sub(fields[j], 1, 1) == 'm' then messages[#messages + 1] = values[j]
      else resolved[#resolved + 1] = values[j] end
    end
  end
end`;

/**
 * History (DESIGN §21), in the write's script: the point of this version is the field p<version>,
 * `<now>:<chunks>:<head>` (the chunks its logs then had); `pfrom` is the oldest kept. ARGV[14]:
 * how many points to keep ('' = all, '0' = none). A rewrite starts the hash afresh, points too.
 */
const POINT = `
local pfrom = tonumber(redis.call('HGET', KEYS[1], 'pfrom') or '')
if not pfrom then
  pfrom = version
  redis.call('HSET', KEYS[1], 'pfrom', version)
end
if ARGV[14] ~= '0' then redis.call('HSET', KEYS[1], 'p' .. version, now .. ':' .. chunk .. ':' .. ARGV[2]) end
if ARGV[14] ~= '' then
  local drop = version - tonumber(ARGV[14])
  while pfrom <= drop do
    redis.call('HDEL', KEYS[1], 'p' .. pfrom)
    pfrom = pfrom + 1
  end
  redis.call('HSET', KEYS[1], 'pfrom', pfrom)
end
`;

/**
 * KEYS: run hash. ARGV: a version. Returns nil (no such point kept) or {head, messages, resolved}:
 * the point's head and the logs' first chunks as they were at that version (lists of chunks: the
 * client joins them, as in GET_SCRIPT).
 */
export const GET_AT_SCRIPT = `
local point = redis.call('HGET', KEYS[1], 'p' .. ARGV[1])
if not point then return nil end
local a = string.find(point, ':', 1, true)
local b = a and string.find(point, ':', a + 1, true)
local count = b and tonumber(string.sub(point, a + 1, b - 1))
local mfirst = 1
${READ_CHUNKS}
return {string.sub(point, b + 1), messages, resolved}
`;

/** A whole snapshot (layout 1): a row of layout 2 is dropped first, its log chunks with it. */
export const PUT_SCRIPT = `${CHECK}
if run[4] then redis.call('DEL', KEYS[1]) end
redis.call('HSET', KEYS[1], 'version', version, 'snapshot', ARGV[2], 'expiresAt', ARGV[4])
${AFTER_WRITE}`;

/**
 * A head and log texts (layout 2). ARGV as above (ARGV[2] the head), then 'append' | 'rewrite', the
 * messages' text (its first chunk), the records' text (ARGV[11] to [13]), the points to keep
 * (ARGV[14]), that chunk's length in UTF-16 units and where the window starts in the log (ARGV[15],
 * [16]), then the messages' further chunks as pairs (length, text) from ARGV[17] on: a long text cut
 * where its write allows (`PartsWrite.cuts`, DESIGN §22). Chunk i of the logs is the fields m<i> and
 * r<i> (absent when empty); `chunks` counts them. An append adds one chunk per chunk of its
 * messages' text, the records' text on the last (none when both texts are empty); a rewrite, or a
 * write that creates the run, starts the hash afresh. For partial reads (DESIGN §22) `mlen` is the
 * transcript log's length, `a<i>` where m<i> starts in it and `wat` where the window starts; a hash
 * written before them (no `mlen`) keeps none until its next rewrite, and is read whole.
 */
export const PUT_PARTS_SCRIPT = `${CHECK}
local chunk = 0
local mlen = 0
if ARGV[11] == 'append' and current then
  if not run[4] then return {-2, current} end
  chunk = tonumber(run[5])
  mlen = tonumber(redis.call('HGET', KEYS[1], 'mlen') or '')
elseif current then
  redis.call('DEL', KEYS[1])
end
if ARGV[12] ~= '' or ARGV[13] ~= '' then
  local texts = {{ARGV[12], ARGV[15]}}
  for i = 17, #ARGV - 1, 2 do texts[#texts + 1] = {ARGV[i + 1], ARGV[i]} end
  for _, text in ipairs(texts) do
    chunk = chunk + 1
    if text[1] ~= '' then
      redis.call('HSET', KEYS[1], 'm' .. chunk, text[1])
      if mlen then
        local at = mlen
        if mlen > 0 then at = mlen + 1 end
        redis.call('HSET', KEYS[1], 'a' .. chunk, at)
        mlen = at + tonumber(text[2])
      end
    end
  end
  if ARGV[13] ~= '' then redis.call('HSET', KEYS[1], 'r' .. chunk, ARGV[13]) end
end
if mlen then redis.call('HSET', KEYS[1], 'mlen', mlen, 'wat', ARGV[16]) end
redis.call('HSET', KEYS[1], 'version', version, 'head', ARGV[2], 'chunks', chunk, 'expiresAt', ARGV[4])
${POINT}
${AFTER_WRITE}`;

/**
 * KEYS: run hash, queue hash. ARGV: version, owner, lease ms, TTL seconds ('' = none), run id.
 * Returns {1, version, '1' if marked to stop else '0', the stop reason or '', the run's queue as
 * JSON or ''}, {0, currentVersion or ''} (version moved) or {-1, version} (owner differs).
 */
export const RENEW_SCRIPT = `${NOW}
local run = redis.call('HMGET', KEYS[1], 'version', 'leaseOwner', 'leaseStop')
if run[1] ~= ARGV[1] then return {0, run[1] or ''} end
if run[2] ~= ARGV[2] then return {-1, run[1]} end
redis.call('HSET', KEYS[1], 'leaseUntil', now + tonumber(ARGV[3]))
if ARGV[4] ~= '' then redis.call('EXPIRE', KEYS[1], ARGV[4]) end
local queued = redis.call('HGET', KEYS[2], ARGV[5]) or ''
if run[3] then return {1, run[1], '1', run[3], queued} end
return {1, run[1], '0', '', queued}
`;

/**
 * KEYS: run hash, queue hash. ARGV: run id, message id, the entry as JSON. Late input (DESIGN §30):
 * appends the entry to the run's field of the queue hash unless its id is there already, the run
 * untouched. Returns -1 (no run), 0 (queued, no live lease) or 1 (queued under a live lease).
 */
export const QUEUE_SCRIPT = `${NOW}
local run = redis.call('HMGET', KEYS[1], 'version', 'leaseOwner', 'leaseUntil')
if not run[1] then return -1 end
local live = 0
if run[2] and tonumber(run[3]) > now then live = 1 end
local list = {}
local queued = redis.call('HGET', KEYS[2], ARGV[1])
if queued then list = cjson.decode(queued) end
for _, entry in ipairs(list) do
  if entry.id == ARGV[2] then return live end
end
list[#list + 1] = cjson.decode(ARGV[3])
redis.call('HSET', KEYS[2], ARGV[1], cjson.encode(list))
return live
`;

/**
 * KEYS: run hash. ARGV: the stop reason ('' = none). Marks a live lease (`leaseStop`; a mark
 * already there is kept), the version untouched. Returns 1 (marked) or 0 (no live lease).
 */
export const REQUEST_STOP_SCRIPT = `${NOW}
local run = redis.call('HMGET', KEYS[1], 'leaseOwner', 'leaseUntil')
if not run[1] or tonumber(run[2]) <= now then return 0 end
redis.call('HSETNX', KEYS[1], 'leaseStop', ARGV[1])
return 1
`;

/** Log chunks read per HMGET (Lua's unpack has a stack limit). */

/**
 * What both reads answer first, from `run` = HMGET version, leaseOwner, leaseUntil, snapshot, …:
 * the lease's owner ('' for none) and state (-1 no lease | 0 not live | 1 live) on the server's
 * clock, and the whole reply at once for a layout-1 row (a snapshot string).
 */
const leaseOrWhole = (after = '') => `${NOW}
local owner, live = '', -1
if run[2] then
  owner = run[2]
  live = 0
  if tonumber(run[3]) > now then live = 1 end
end
if run[4] then return {run[1], owner, live, now, run[4]${after}} end`;

/** The run's queued messages (DESIGN §30), read in the same atomic step: KEYS[2] the queue hash, ARGV[2] the run id. */
const QUEUED = `, redis.call('HGET', KEYS[2], ARGV[2]) or ''`;

/**
 * KEYS: run hash, queue hash. ARGV: 'window' to read the transcript from the window's chunk on
 * (DESIGN §22), '' for all; the run id. Returns nil, or {version, lease owner or '', -1 no lease |
 * 0 not live | 1 live, TIME in ms, snapshot, queued} (layout 1) or {…, head, messages, resolved,
 * messagesAt, queued} (queued: the run's late input as JSON, or ''; layout 2: the
 * logs' chunks as lists, which the client joins by ',' — Lua 5.1's `table.concat` of a few 64 KiB
 * chunks took three times as long as the rest of the read — the transcript's from the newest
 * chunk that starts at or before `wat`,
 * found backwards, and where it starts; 0: all); an error reply TURNKIT_CORRUPT_CHUNKS when the
 * chunk count is not one a write could have left.
 */
export const GET_SCRIPT = `
local run = redis.call('HMGET', KEYS[1], 'version', 'leaseOwner', 'leaseUntil', 'snapshot', 'head', 'chunks', 'wat')
if not run[1] or not (run[4] or run[5]) then return nil end
${leaseOrWhole(QUEUED)}
local count = tonumber(run[6])
local mfirst, mat = 1, 0
local wat = tonumber(run[7] or '')
if ARGV[1] == 'window' and wat and wat > 0 and count and count == math.floor(count) then
  for i = count, 1, -1 do
    local at = tonumber(redis.call('HGET', KEYS[1], 'a' .. i) or '')
    if at and at <= wat then
      mfirst, mat = i, at
      break
    end
    -- A chunk with text but no offset: written before offsets were kept; read everything.
    if not at and redis.call('HEXISTS', KEYS[1], 'm' .. i) == 1 then break end
  end
end
${READ_CHUNKS}
return {run[1], owner, live, now, run[5], messages, resolved, mat${QUEUED}}
`;

/**
 * KEYS: run hash. Returns nil, {version, lease owner or '', -1 | 0 | 1 (as GET_SCRIPT), TIME in ms,
 * snapshot} (layout 1), or {…, head, length} (layout 2): the head alone, and the transcript log's
 * length in bytes (its chunks' HSTRLEN and the commas between them), without reading a chunk.
 */
export const HEAD_SCRIPT = `
local run = redis.call('HMGET', KEYS[1], 'version', 'leaseOwner', 'leaseUntil', 'snapshot', 'head', 'chunks')
if not run[1] or not (run[4] or run[5]) then return nil end
${leaseOrWhole()}
local count = tonumber(run[6])
if not count or count < 0 or count ~= math.floor(count) or count > redis.call('HLEN', KEYS[1]) then
  return redis.error_reply('TURNKIT_CORRUPT_CHUNKS')
end
local length = 0
for i = 1, count do
  local size = redis.call('HSTRLEN', KEYS[1], 'm' .. i)
  if size > 0 then length = length + size + 1 end
end
return {run[1], owner, live, now, run[5], length}
`;

/**
 * KEYS: expiry index, queue hash, then run hashes. ARGV: the run ids of those hashes. Drops the
 * expiry index entry and the queued messages (DESIGN §30) of every run whose hash is gone (with
 * `ttlSeconds` a hash can vanish before them), checked and dropped atomically so a run written
 * meanwhile keeps both. Returns 1 (kept) or 0 per run. `listExpired` and `listPending` call it on
 * the runs they meet.
 */
export const DROP_GONE_SCRIPT = `
local kept = {}
for i = 3, #KEYS do
  if redis.call('EXISTS', KEYS[i]) == 1 then
    kept[i - 2] = 1
  else
    redis.call('ZREM', KEYS[1], ARGV[i - 2])
    redis.call('HDEL', KEYS[2], ARGV[i - 2])
    kept[i - 2] = 0
  end
end
return kept
`;

/**
 * KEYS: run hash, inbox index. Deletes the run and its inbox entries (those its `pending` field
 * lists) in one step.
 */
export const DELETE_SCRIPT = `
local pending = redis.call('HGET', KEYS[1], 'pending')
if pending then
  for _, old in ipairs(cjson.decode(pending)) do
    redis.call('HDEL', KEYS[2], old[1])
    for _, scope in ipairs(old[2]) do redis.call('ZREM', KEYS[2] .. scope, old[1]) end
  end
end
redis.call('DEL', KEYS[1])
`;

/**
 * KEYS: inbox index. Once per inbox (its `:kinds` marker says it is done): puts every entry in the
 * sorted set of its kind (`:k:<kind>`), for the entries written before writes kept that set. Atomic,
 * so no write lands between the scan and the marker.
 */
export const KIND_INDEX_SCRIPT = `
if redis.call('EXISTS', KEYS[1] .. ':kinds') == 1 then return 0 end
local cursor = '0'
repeat
  local page = redis.call('HSCAN', KEYS[1], cursor, 'COUNT', 1000)
  cursor = page[1]
  local fields = page[2]
  for i = 1, #fields, 2 do
    redis.call('ZADD', KEYS[1] .. ':k:' .. cjson.decode(fields[i + 1]).kind, 0, fields[i])
  end
until cursor == '0'
redis.call('SET', KEYS[1] .. ':kinds', '1')
return 1
`;

/**
 * KEYS: inbox index, one of its sorted sets. ARGV: entry keys read from that set whose entries were
 * gone. Removes those still gone (an entry put into a kind's set by {@link KIND_INDEX_SCRIPT} is not
 * in its run's \`pending\` list, so the write that drops the entry leaves it there).
 */
export const PRUNE_SCRIPT = `
for _, key in ipairs(ARGV) do
  if redis.call('HEXISTS', KEYS[1], key) == 0 then redis.call('ZREM', KEYS[2], key) end
end
`;
