/**
 * Background turns across processes on bullmq 6 (DESIGN §19, §25), the alias `bullmq-6`: the
 * handler's queue here (src/queue/bullmq.ts loads `bullmq`, mocked to bullmq 6 in this file) and the
 * worker processes (bundled against `bullmq-6`) both run it. Same suite as bullmq 5's
 * (background-processes-suite.ts): a worker killed with SIGKILL mid-tool included.
 */
import { vi } from 'vitest';
import { describeBackgroundProcesses } from './background-processes-suite.js';

vi.mock('bullmq', () => import('bullmq-6'));

describeBackgroundProcesses('bullmq-6');
