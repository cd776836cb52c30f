/**
 * The door of `stores/` for the layers above: the run-id rule they share (a run id is a safe file
 * name, key and path segment). The stores themselves (file, Redis, Postgres) are public entries
 * of their own (`/file`, `/redis`, `/postgres`, and the package root), so a layer that checks a
 * run id never bundles a store.
 */
export { assertSafeRunId, isSafeRunId } from './run-id.js';
