/**
 * Background turns across processes (DESIGN §17, issue 21), on loopback Redis, written once for
 * each BullMQ major (background-processes.test.ts: bullmq 5; background-processes-bullmq6.test.ts:
 * bullmq 6). Tried as an unlucky production would: 1 000 turns over two workers, a tool slower than
 * every lease with double clicks, a worker killed with SIGKILL mid-tool, SIGTERM or SIGINT that
 * finishes, or hands back, the turn under way, and a stop sent here that ends the turn a worker
 * plays (DESIGN §20). The world (handler here, worker processes) is background-lab.ts.
 */
import { describe, expect, it } from 'vitest';
import {
  ASYNC,
  allExecutions,
  type BullmqInstall,
  inBatches,
  keyOf,
  labsOn,
  redisUrl,
} from './background-lab.js';
import { THAW_CALL_ID } from './helpers/lease-agent.js';
import { readSse, send } from './http-fixtures.js';

export function describeBackgroundProcesses(install: BullmqInstall): void {
  const major = install === 'bullmq' ? 'bullmq 5' : 'bullmq 6';
  describe.skipIf(!redisUrl)(
    `background turns across processes (${major}, Redis store and event hub)`,
    () => {
      const labs = labsOn(install);
      const lab = labs.lab;

      it(`plays a background turn with ${major} in the worker processes and in this process`, async () => {
        const { startWorker, pausedRun, approveAsync, settled, bullmqRecorded } = await lab({
          leaseMs: 10_000,
          lockMs: 5_000,
          toolMs: 0,
          abortable: false,
          concurrency: 1,
          graceMs: 5_000,
        });
        const imports = await labs.bundle().imports();
        expect(imports.filter((name) => name.startsWith('bullmq'))).toEqual([install]);
        const worker = await startWorker();
        const runId = await pausedRun();
        expect((await approveAsync(runId)).status).toBe(202);
        const done = await settled([runId], 20_000);
        expect(done.get(runId)).toMatchObject({ status: 'completed', output: `Recorded ${keyOf(runId)}.` });
        expect(worker.executions.get(keyOf(runId))).toBe(1);
        expect(await bullmqRecorded()).toMatch(install === 'bullmq' ? /^bullmq:5\./ : /^bullmq:6\./);
      });

      it('plays 1 000 background turns over two workers: none lost, each tool once', async () => {
        const { handler, startWorker, settled } = await lab({
          leaseMs: 60_000,
          lockMs: 10_000,
          toolMs: 0,
          abortable: false,
          concurrency: 8,
          graceMs: 30_000,
        });
        const workers = await Promise.all([startWorker(), startWorker()]);
        const RUNS = 1_000;
        const started = await inBatches(Array.from({ length: RUNS }), 50, () =>
          send(handler, 'POST', '/runs', { input: 'Thaw one K562 vial' }, ASYNC),
        );
        expect(started.every((response) => response.status === 202)).toBe(true);
        const runIds = started.map((response) => response.body.runId as string);
        expect(new Set(runIds).size).toBe(RUNS);

        const paused = await settled(runIds, 120_000);
        expect([...paused.values()].every((view) => view.status === 'needs_input')).toBe(true);

        const approved = await inBatches(runIds, 50, (runId) =>
          send(handler, 'POST', `/runs/${runId}/approve`, {}, ASYNC),
        );
        expect(approved.every((response) => response.status === 202)).toBe(true);
        const done = await settled(runIds, 120_000);
        for (const runId of runIds) {
          expect(done.get(runId)).toMatchObject({ status: 'completed', output: `Recorded ${keyOf(runId)}.` });
        }
        const executions = allExecutions(workers);
        expect(executions.size).toBe(RUNS);
        expect([...executions.values()].every((count) => count === 1)).toBe(true);
        // Both workers took their share.
        expect(workers.every((worker) => worker.executions.size > 0)).toBe(true);
        expect(workers.flatMap((worker) => worker.errors)).toEqual([]);
      }, 300_000);

      it('runs a tool slower than the lease and the queue lock once, however often the approval is sent', async () => {
        const { startWorker, pausedRun, approveAsync, settled } = await lab({
          leaseMs: 1_000,
          lockMs: 1_000,
          toolMs: 1_500,
          abortable: false,
          concurrency: 4,
          graceMs: 30_000,
        });
        const workers = await Promise.all([startWorker(), startWorker()]);
        const runIds = await Promise.all(Array.from({ length: 6 }, () => pausedRun()));
        const first = await Promise.all(runIds.map(approveAsync));
        expect(first.map((response) => response.status)).toEqual(runIds.map(() => 202));
        // Double clicks, while the turns play: each reads the claimed run; nothing is enqueued twice.
        await new Promise((resolve) => setTimeout(resolve, 300));
        const again = await Promise.all(runIds.map(approveAsync));
        expect(again.map((response) => response.status)).toEqual(runIds.map(() => 200));

        const done = await settled(runIds, 30_000);
        const executions = allExecutions(workers);
        for (const runId of runIds) {
          expect(done.get(runId)).toMatchObject({ status: 'completed', output: `Recorded ${keyOf(runId)}.` });
          expect(executions.get(keyOf(runId))).toBe(1);
        }
      }, 60_000);

      it('recovers the turns of a worker killed with SIGKILL mid-tool: each tool at most twice, with one key', async () => {
        const { startWorker, pausedRun, approveAsync, settled } = await lab({
          leaseMs: 1_000,
          lockMs: 1_000,
          toolMs: 1_500,
          abortable: false,
          concurrency: 2,
          graceMs: 30_000,
        });
        const workers = await Promise.all([startWorker(), startWorker()]);
        const runIds = await Promise.all(Array.from({ length: 4 }, () => pausedRun()));
        const firstExecution = Promise.race(
          workers.map((worker, index) => worker.nextExecution().then(() => index)),
        );
        await Promise.all(runIds.map(approveAsync));
        const victim = workers[await firstExecution]!;
        await new Promise((resolve) => setTimeout(resolve, 200));
        victim.child.kill('SIGKILL');
        expect((await victim.exited).signal).toBe('SIGKILL');
        const killedMidTool = new Set(victim.executions.keys());
        expect(killedMidTool.size).toBeGreaterThan(0);

        const done = await settled(runIds, 60_000);
        const survivor = workers.find((worker) => worker !== victim)!;
        for (const runId of runIds) {
          const view = done.get(runId);
          expect(view).toMatchObject({ status: 'completed', output: `Recorded ${keyOf(runId)}.` });
          // The survivor ran every tool once; a tool the victim had started ran twice, with one key.
          expect(survivor.executions.get(keyOf(runId))).toBe(1);
          expect(allExecutions(workers).get(keyOf(runId))).toBe(killedMidTool.has(keyOf(runId)) ? 2 : 1);
          // One tool result for the one tool call, whatever happened.
          const results = view.messages.filter(
            (message: { role: string; tool_call_id?: string }) =>
              message.role === 'tool' && message.tool_call_id === THAW_CALL_ID,
          );
          expect(results).toHaveLength(1);
        }
      }, 90_000);

      it('finishes the turn under way on SIGTERM, while an SSE client follows it', async () => {
        const { handler, startWorker, pausedRun, approveAsync } = await lab({
          leaseMs: 1_000,
          lockMs: 2_000,
          toolMs: 1_000,
          abortable: true,
          concurrency: 1,
          graceMs: 20_000,
        });
        const worker = await startWorker();
        const runId = await pausedRun();
        const events = await handler(new Request(`http://test.local/runs/${runId}/events`));
        expect(events.status).toBe(200);
        const executing = worker.nextExecution();
        expect((await approveAsync(runId)).status).toBe(202);
        await executing;
        worker.child.kill('SIGTERM');
        // The worker closed after the turn was written, then ended by the signal.
        expect((await worker.exited).signal).toBe('SIGTERM');
        const read = await send(handler, 'GET', `/runs/${runId}`);
        expect(read.body).toMatchObject({ status: 'completed', output: `Recorded ${keyOf(runId)}.` });
        expect(worker.executions.get(keyOf(runId))).toBe(1);

        // The stream, served here, heard the turn the worker played in its process.
        const heard: string[] = [];
        for await (const event of readSse(events.body!)) {
          if (event.event === 'comment') continue;
          heard.push(event.event === 'state' ? `state:${event.data.status}` : event.data.type);
          if (event.event === 'state' && event.data.status === 'completed') break;
        }
        expect(heard[0]).toBe('state:needs_input');
        expect(heard).toContain('tool_started');
        expect(heard.at(-1)).toBe('state:completed');
      }, 60_000);

      it('stops a turn a worker process plays (POST /runs/:id/stop here): aborted before its next model call, the running tool finished and kept', async () => {
        const { handler, startWorker, pausedRun, approveAsync, settled } = await lab({
          leaseMs: 60_000,
          lockMs: 10_000,
          toolMs: 1_000,
          // The tool would stop if its signal aborted: a stop must let it finish.
          abortable: true,
          concurrency: 1,
          graceMs: 20_000,
        });
        const worker = await startWorker();
        const runId = await pausedRun();
        const events = await handler(new Request(`http://test.local/runs/${runId}/events`));
        const executing = worker.nextExecution();
        expect((await approveAsync(runId)).status).toBe(202);
        await executing;
        const stopped = await send(handler, 'POST', `/runs/${runId}/stop`, { reason: 'wrong vial' });
        expect(stopped.status).toBe(200);
        expect(stopped.body).toMatchObject({ stop: 'requested', status: 'running' });

        const view = (await settled([runId], 30_000)).get(runId);
        expect(view.status).toBe('aborted');
        expect(view.messages.at(-1)).toMatchObject({ role: 'tool', tool_call_id: THAW_CALL_ID });
        expect(JSON.parse(view.messages.at(-1).content)).toEqual({ recorded: keyOf(runId) });
        expect(worker.executions.get(keyOf(runId))).toBe(1);
        expect(worker.errors).toEqual([]);
        // The stream, served here, heard the worker's turn end aborted, with no model call after the tool.
        const heard: string[] = [];
        for await (const event of readSse(events.body!)) {
          if (event.event === 'comment') continue;
          heard.push(event.event === 'state' ? `state:${event.data.status}` : event.data.type);
          if (event.event === 'state' && event.data.status === 'aborted') break;
        }
        expect(heard).toContain('tool_finished');
        expect(heard).toContain('turn_aborted');
        expect(heard).not.toContain('model_started');
      }, 60_000);

      it('hands the turn under way back on SIGINT (Ctrl-C) after graceMs; the next worker finishes it', async () => {
        const { startWorker, pausedRun, approveAsync, settled, handler } = await lab({
          leaseMs: 1_000,
          lockMs: 2_000,
          toolMs: 5_000,
          abortable: true,
          concurrency: 1,
          graceMs: 100,
        });
        const first = await startWorker();
        const runId = await pausedRun();
        const executing = first.nextExecution();
        const approved = await approveAsync(runId);
        expect(approved.status).toBe(202);
        await executing;
        first.child.kill('SIGINT');
        expect((await first.exited).signal).toBe('SIGINT');
        // It did not wait for the 5 s tool: the run is still running, with nothing of the turn written.
        const handedBack = await send(handler, 'GET', `/runs/${runId}`);
        expect(handedBack.body.status).toBe('running');
        expect(handedBack.body.messages.some((message: { role: string }) => message.role === 'tool')).toBe(
          false,
        );

        const second = await startWorker({ toolMs: 100 });
        const done = await settled([runId], 30_000);
        expect(done.get(runId)).toMatchObject({ status: 'completed', output: `Recorded ${keyOf(runId)}.` });
        expect(first.executions.get(keyOf(runId))).toBe(1);
        expect(second.executions.get(keyOf(runId))).toBe(1);
      }, 60_000);
    },
  );
}
