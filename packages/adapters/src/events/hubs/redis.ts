/**
 * `redisEventHub(client)`: an event hub shared by every process on one Redis, on Redis Streams.
 * Each run is a stream whose entry ids are the messages' places (`<seq>-0` for an event,
 * `<seq>-1` for the `state` after it), so the stream is in `seq` order and a resume is a range
 * read from `Last-Event-ID`. Writes go through one small script per batch, which drops what is
 * not after the stream's last entry and keeps the stream bounded (`MAXLEN ~`) and expiring
 * (`PEXPIRE`). Each hub reads with one dedicated connection (`client.duplicate()`), one
 * `XREAD BLOCK` over the streams of every run that has listeners in this process.
 */
import { createHash, randomUUID } from 'node:crypto';
import { TurnkitError } from '@turnkit/core';
import type { Redis } from 'ioredis';
import { checkCount } from '../counts.js';
import type { EventHub, HubMessage } from '../hub.js';
import { type Entry, PAGE_SIZE, retryDelay, type SharedHub, sharedHub, sleep } from './shared.js';

/** Options of {@link redisEventHub}. */
export interface RedisEventHubOptions {
  /** Prepended to the run id to make its stream's key. Default `'turnkit:events:'`. */
  prefix?: string | undefined;
  /** Entries kept per run, approximately (`XADD … MAXLEN ~`). Default 10 000. */
  maxLength?: number | undefined;
  /** A run's stream expires this long after its last message (`PEXPIRE`). Default 3 600 000 (1 h). */
  retainMs?: number | undefined;
  /** Receives what goes wrong with Redis (a lost connection, a failed write). Default: `console.error`. */
  onError?: (error: unknown) => void;
}

/** How long one `XREAD BLOCK` waits before it is sent again. */
const BLOCK_MS = 5_000;

/**
 * KEYS: the run's stream. ARGV: maxLength, retainMs, then per message: seq, kind (0 event,
 * 1 state), event, data. Adds, in order, the messages placed after the stream's last entry.
 * Returns how many were added.
 */
const WRITE_SCRIPT = `
local top = redis.call('XREVRANGE', KEYS[1], '+', '-', 'COUNT', 1)[1]
local lastSeq, lastKind = -1, 1
if top then
  local seq, kind = string.match(top[1], '^(%d+)-(%d+)$')
  lastSeq, lastKind = tonumber(seq), tonumber(kind)
end
local added = 0
for i = 3, #ARGV, 4 do
  local seq, kind = tonumber(ARGV[i]), tonumber(ARGV[i + 1])
  if seq > lastSeq or (seq == lastSeq and kind > lastKind) then
    redis.call('XADD', KEYS[1], 'MAXLEN', '~', ARGV[1], seq .. '-' .. kind,
      'event', ARGV[i + 2], 'data', ARGV[i + 3])
    lastSeq, lastKind = seq, kind
    added = added + 1
  end
end
if added > 0 then redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return added
`;

const WRITE_SHA = createHash('sha1').update(WRITE_SCRIPT).digest('hex');

type StreamEntry = [id: string, fields: string[]];

type StreamReply = [key: string, entries: StreamEntry[]][];

const isEntry = (entry: unknown): entry is StreamEntry =>
  Array.isArray(entry) &&
  typeof entry[0] === 'string' &&
  Array.isArray(entry[1]) &&
  entry[1].every((field) => typeof field === 'string');

/**
 * An `XREAD` reply checked to be what the loop reads: `null` (nothing new) or `[key, entries][]`.
 * Anything else (another client's reply shape) throws, so the loop reports it and backs off
 * instead of dying on it.
 */
function streamReply(reply: unknown): StreamReply {
  if (reply === null) return [];
  const wellFormed =
    Array.isArray(reply) &&
    reply.every(
      (stream) =>
        Array.isArray(stream) &&
        typeof stream[0] === 'string' &&
        Array.isArray(stream[1]) &&
        stream[1].every(isEntry),
    );
  if (!wellFormed) {
    throw new TurnkitError(
      'CONFIG_INVALID',
      `redisEventHub: XREAD answered ${JSON.stringify(reply)?.slice(0, 200)}, not [stream, entries][]: is the client ioredis 5 or 6, without a reply transformer of its own?`,
    );
  }
  return reply as StreamReply;
}

/** The place of a stream entry id (`<seq>-<kind>`). */
function positionOfId(id: string): number {
  const dash = id.indexOf('-');
  return Number(id.slice(0, dash)) * 2 + Number(id.slice(dash + 1));
}

/** The stream entry id of a place. */
const idOf = (position: number) => `${Math.floor(position / 2)}-${position % 2}`;

function toEntry([id, fields]: StreamEntry): Entry {
  const field = (name: string) => fields[fields.indexOf(name) + 1] ?? '';
  const position = positionOfId(id);
  const message: HubMessage = {
    event: field('event'),
    id: String(Math.floor(position / 2)),
    data: JSON.parse(field('data')),
  };
  return { position, message };
}

/**
 * An {@link EventHub} on Redis (ioredis 5 or 6, Redis ≥ 5; not Redis Cluster, where one `XREAD` cannot
 * span runs), shared by every handler process that uses the same Redis and `prefix`.
 *
 * - Storage: the stream `<prefix><runId>`, entries `{ event, data }` with ids `<seq>-0` (an
 *   event) and `<seq>-1` (the `state` after it). Trimmed to about `maxLength` entries, and gone
 *   `retainMs` after its last message: a stream resuming from an event no longer held starts
 *   again from the run's current state.
 * - Reading: one connection per hub, made with `client.duplicate()` when the first listener
 *   arrives; it reconnects as ioredis does, and resumes each run where it stopped.
 * - `close()` ends every subscription (clients reconnect, to another process), closes the reading
 *   connection and waits for pending writes. It never closes `client`, which stays yours.
 *
 * Node only: ioredis (TCP sockets) and a reading connection that lives as long as the process,
 * which serverless runtimes do not keep.
 *
 * @param client An ioredis client, used for writes and catch-up reads.
 */
export function redisEventHub(client: Redis, options: RedisEventHubOptions = {}): EventHub {
  const where = 'redisEventHub';
  checkCount(options.maxLength, 'maxLength', where);
  checkCount(options.retainMs, 'retainMs', where);
  const prefix = options.prefix ?? 'turnkit:events:';
  const maxLength = String(options.maxLength ?? 10_000);
  const retainMs = String(options.retainMs ?? 3_600_000);
  const onError = options.onError ?? ((error: unknown) => console.error('[turnkit/redisEventHub]', error));
  const keyOf = (runId: string) => `${prefix}${runId}`;
  // ioredis puts a client's own keyPrefix before every key it sends, so XREAD answers with it.
  const clientPrefix = client.options?.keyPrefix ?? '';

  /** Where the reading loop is, per followed run (a stream id). */
  const cursors = new Map<string, string>();
  /** A stream of this hub alone: an entry added to it wakes the loop to read a new run too. */
  const wakeKey = `${prefix}__wake__:${randomUUID()}`;
  let wakeId = '0-0';
  let reader: Redis | undefined;
  let loop: Promise<void> | undefined;
  let closed = false;
  let shared: SharedHub;

  async function read(): Promise<void> {
    if (!reader) {
      reader = client.duplicate();
      reader.on('error', onError);
    }
    let failures = 0;
    while (!closed && cursors.size > 0) {
      const runIds = [...cursors.keys()];
      const keys = [wakeKey, ...runIds.map(keyOf)];
      const ids = [wakeId, ...runIds.map((runId) => cursors.get(runId)!)];
      let reply: StreamReply;
      try {
        // `xread`, not `call('XREAD', …)`: ioredis 6 returns `call`'s reply flat, `xread`'s nested.
        reply = streamReply(
          await reader.xread('COUNT', PAGE_SIZE, 'BLOCK', BLOCK_MS, 'STREAMS', ...keys, ...ids),
        );
        failures = 0;
      } catch (error) {
        if (closed) break;
        onError(error);
        await sleep(retryDelay(++failures));
        continue;
      }
      for (const [key, entries] of reply) {
        const last = entries[entries.length - 1];
        if (!last) continue;
        const name = key.slice(clientPrefix.length);
        if (name === wakeKey) {
          wakeId = last[0];
          continue;
        }
        const runId = name.slice(prefix.length);
        if (!cursors.has(runId)) continue;
        cursors.set(runId, last[0]);
        try {
          shared.deliverNew(runId, entries.map(toEntry));
        } catch (error) {
          onError(error);
        }
      }
    }
    loop = undefined;
  }

  const wake = async () => {
    try {
      await client.xadd(wakeKey, 'MAXLEN', '1', '*', 'wake', '1');
      await client.pexpire(wakeKey, 60_000);
    } catch (error) {
      onError(error);
    }
  };

  shared = sharedHub(
    where,
    {
      async range(runId, from) {
        const entries = (await client.xrange(
          keyOf(runId),
          idOf(from),
          '+',
          'COUNT',
          PAGE_SIZE,
        )) as StreamEntry[];
        return entries.map(toEntry);
      },
      async top(runId) {
        const [last] = (await client.xrevrange(keyOf(runId), '+', '-', 'COUNT', 1)) as StreamEntry[];
        return last ? positionOfId(last[0]) : -1;
      },
      follow(runId, position) {
        cursors.set(runId, position < 0 ? '0-0' : idOf(position));
        if (loop) void wake();
        else loop = read();
      },
      unfollow(runId) {
        cursors.delete(runId);
      },
      async write(runId, entries) {
        const args: (string | number)[] = [maxLength, retainMs];
        for (const { position, message } of entries) {
          args.push(
            Math.floor(position / 2),
            position % 2,
            message.event,
            JSON.stringify(message.data ?? null),
          );
        }
        try {
          await client.evalsha(WRITE_SHA, 1, keyOf(runId), ...args);
        } catch (error) {
          // The server does not have the script cached yet (or any more): send it whole, once.
          if (!String((error as Error | null)?.message).startsWith('NOSCRIPT')) throw error;
          await client.eval(WRITE_SCRIPT, 1, keyOf(runId), ...args);
        }
      },
    },
    onError,
  );

  return {
    publish: shared.publish,
    subscribe: shared.subscribe,
    listeners: shared.listeners,
    async close() {
      closed = true;
      await shared.close();
      cursors.clear();
      reader?.disconnect();
      await loop;
      try {
        await client.del(wakeKey);
      } catch (error) {
        onError(error);
      }
    },
  };
}
