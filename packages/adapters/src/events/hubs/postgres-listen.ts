/**
 * The one connection a `postgresEventHub` listens on: taken from the pool when the hub's first
 * listener arrives, kept until `close()`, and replaced when it breaks (with a growing delay while
 * the database is away), after which the hub reads every run again, so a notification lost with
 * the connection loses nothing. A late `error` from a connection given back must not crash the
 * process, so each keeps a listener that ignores it.
 */
import { retryDelay, sleep } from './shared.js';

/** A notification as node-postgres hands it over. */
export interface PgNotification {
  channel: string;
  payload?: string | undefined;
}

/** What the hub needs from a client checked out of the pool (a `pg.PoolClient` fits). */
export interface PgListenClient {
  query(text: string): Promise<unknown>;
  on(event: 'notification', listener: (message: PgNotification) => void): unknown;
  on(event: 'error', listener: (error: Error) => void): unknown;
  removeAllListeners(event?: string): unknown;
  release(error?: Error | boolean): void;
}

/** What {@link pgListener} needs from the hub. */
export interface PgListenerOptions {
  connect(): Promise<PgListenClient>;
  /** A plain identifier (checked by the hub). */
  channel: string;
  onNotification(notification: PgNotification): void;
  /** The connection came back after it broke: read what may have been missed. */
  onReconnect(): void;
  /** Whether anything still needs the connection (runs followed, hub open). */
  needed(): boolean;
  onError(error: unknown): void;
}

/** Gives a connection back to the pool: destroyed when it failed (`error`), else reusable. */
function letGo(client: PgListenClient, error?: unknown): void {
  client.removeAllListeners();
  client.on('error', () => {});
  client.release(error === undefined ? undefined : error instanceof Error ? error : true);
}

/** The hub's listening connection: `listen()` resolves once it listens; `close()` gives it back. */
export function pgListener(options: PgListenerOptions): { listen(): Promise<void>; close(): Promise<void> } {
  let listening: Promise<PgListenClient> | undefined;
  let closed = false;

  async function connect(): Promise<PgListenClient> {
    const client = await options.connect();
    client.on('notification', options.onNotification);
    client.on('error', (error) => void lost(client, error));
    try {
      await client.query(`LISTEN "${options.channel}"`);
    } catch (error) {
      letGo(client, error);
      throw error;
    }
    return client;
  }

  function listen(): Promise<PgListenClient> {
    if (listening) return listening;
    const attempt = connect();
    listening = attempt;
    attempt.catch(() => {
      if (listening === attempt) listening = undefined;
    });
    return attempt;
  }

  async function lost(client: PgListenClient, error: Error): Promise<void> {
    const current = await listening?.catch(() => undefined);
    if (current !== client) return;
    listening = undefined;
    letGo(client, error);
    if (closed) return;
    options.onError(error);
    for (let failures = 1; !closed && options.needed(); failures++) {
      try {
        await listen();
        options.onReconnect();
        return;
      } catch (retryError) {
        options.onError(retryError);
        await sleep(retryDelay(failures));
      }
    }
  }

  return {
    async listen() {
      await listen();
    },
    async close() {
      closed = true;
      const client = await listening?.catch(() => undefined);
      listening = undefined;
      if (!client) return;
      try {
        await client.query(`UNLISTEN "${options.channel}"`);
        letGo(client);
      } catch (error) {
        letGo(client, error);
      }
    },
  };
}
