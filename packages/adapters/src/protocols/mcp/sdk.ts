/**
 * The MCP SDK, loaded when first needed: `@modelcontextprotocol/client` and `/server` are optional
 * peer dependencies, so an application using only `mcpTools` need not install the server package
 * (and the reverse). A missing package is a `CONFIG_INVALID` error that says what to install.
 */
import { TurnkitError } from '@turnkit/core';

type ClientSdk = typeof import('@modelcontextprotocol/client');
type ServerSdk = typeof import('@modelcontextprotocol/server');

function missing(name: string, error: unknown): TurnkitError {
  return new TurnkitError(
    'CONFIG_INVALID',
    `${name} could not be loaded (${(error as Error).message}). Install it: npm install ${name}@^2`,
    { cause: error },
  );
}

let client: Promise<ClientSdk> | undefined;
let server: Promise<ServerSdk> | undefined;

/** `@modelcontextprotocol/client`, for `mcpTools`. */
export function loadClientSdk(): Promise<ClientSdk> {
  client ??= import('@modelcontextprotocol/client').catch((error: unknown) => {
    client = undefined;
    throw missing('@modelcontextprotocol/client', error);
  });
  return client;
}

/** `@modelcontextprotocol/server`, for `mcpServer`. */
export function loadServerSdk(): Promise<ServerSdk> {
  server ??= import('@modelcontextprotocol/server').catch((error: unknown) => {
    server = undefined;
    throw missing('@modelcontextprotocol/server', error);
  });
  return server;
}
