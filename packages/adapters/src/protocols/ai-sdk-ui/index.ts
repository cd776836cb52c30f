/**
 * @turnkit/adapters/ai-sdk — TurnKit and Vercel AI SDK 7 (and 6), both ways:
 * - `aiSdkHandler`: an agent as the back end of `useChat` (`ai@7` with `@ai-sdk/react@4`, or `ai@6`
 *   with `@ai-sdk/react@3`: the same stream reads the same on both), speaking the
 *   UI message stream v1; questions, approvals and forms travel as tool parts the front end answers
 *   with `addToolOutput` and `addToolApprovalResponse`. It needs no runtime import of `ai`: it writes
 *   the chunks itself, within `ai@6.0.0`'s strict schemas. Its browser half (the
 *   `sendAutomaticallyWhen` predicate) is `@turnkit/adapters/ai-sdk/client`; `aiSdkProtocol()` mounts
 *   it on `createHandler`.
 * - `aiSdkModel`: any AI SDK 7 or 6 provider model as a TurnKit `ModelAdapter` (it lives in
 *   `models/ai-sdk/`, apart from this protocol, and is re-exported here for the subpath).
 */

export type { AiSdkCallSettings, AiSdkLanguageModel, AiSdkModelOptions } from '../../models/ai-sdk/index.js';
export { aiSdkModel } from '../../models/ai-sdk/index.js';
export type { UIFinishReason, UIMessageChunk } from './chunks.js';
export { UI_MESSAGE_STREAM_HEADERS } from './chunks.js';
export type {
  TurnkitInteractionKind,
  TurnkitMessageMetadata,
  TurnkitMetadata,
  TurnkitPendingPart,
  UIMessageLike,
  UIPartLike,
} from './client.js';
export { turnkitMetadataOf, turnkitSendAutomaticallyWhen } from './client.js';
export type { AiSdkHandlerOptions } from './handler.js';
export { aiSdkHandler } from './handler.js';
export type { UIMessage, UIPart, UIToolPart } from './messages.js';
export { toUIMessages } from './messages.js';
export { aiSdkProtocol } from './mount.js';
export type { UIToolState } from './view.js';
export { QUESTION_PART_TOOL } from './view.js';
export type { WriterOptions } from './writer.js';
export { toUIMessageChunks } from './writer.js';
