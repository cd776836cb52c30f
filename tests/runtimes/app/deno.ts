/** Deno entry, run with `--allow-net` only: the port comes as an argument, not from the environment. */
import { handle } from './agent.js';

declare const Deno: {
  args: string[];
  serve(options: { port: number; hostname: string; onListen(): void }, handler: typeof handle): unknown;
};

Deno.serve({ port: Number(Deno.args[0]), hostname: '127.0.0.1', onListen() {} }, handle);
