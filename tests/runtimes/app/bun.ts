/** Bun entry, run from source as Bun users do (`bun app/bun.ts <port>`). */
import { handle } from './agent.js';

declare const Bun: { serve(options: { port: number; hostname: string; fetch: typeof handle }): unknown };

Bun.serve({ port: Number(process.argv[2]), hostname: '127.0.0.1', fetch: handle });
