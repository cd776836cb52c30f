/**
 * Background turns across processes on bullmq 5 (the lock's `bullmq`): the suite of
 * background-processes-suite.ts. background-processes-bullmq6.test.ts runs it on bullmq 6.
 */
import { describeBackgroundProcesses } from './background-processes-suite.js';

describeBackgroundProcesses('bullmq');
