/** Snapshot strings: the envelope, its shape checks, signing, and the application context (superjson). */
export {
  assertSerializable,
  contextProblem,
  deserializeContext,
  serializeChecked,
  serializeContext,
} from './context.js';
export { constantTimeEqual, fromBase64url, hmacHex, randomBytes, sha256Hex, toBase64url } from './crypto.js';
export {
  checkShape,
  type DecodedSnapshot,
  encodeSnapshot,
  openEnvelope,
  parseSnapshot,
  readEnvelope,
  readSnapshotHeader,
  SNAPSHOT_VERSION,
  type SnapshotHeader,
  type SnapshotKeys,
} from './envelope.js';
export { joinLog, LOG_CHUNK_CHARS, type LogChunk, logChunks } from './log-text.js';
export {
  assembleSnapshot,
  type EncodedParts,
  encodeParts,
  fullTranscript,
  type LogWindow,
  type OpenedParts,
  openParts,
  type SnapshotParts,
  type StoredLogs,
} from './parts.js';
export { stateNames } from './shape.js';
export { type TranscriptText, transcriptText } from './transcript.js';
