/**
 * Turns one turn into UI message stream chunks, live. While the turn plays, its events stream as
 * they come: each top-level model call is a step (`start-step`, its text as
 * `text-start/delta/end`, its tool calls as `tool-input-available` once the model decided them).
 * Events carry no tool results, so when the turn ends the writer compares the run's assistant
 * message (the transcript, see view.ts) with what the client already holds — the parts of the
 * message it continues, plus what this stream sent — and sends only the difference: outputs,
 * approval requests, denials, questions. A client whose earlier response was lost (a replayed
 * request, answered idempotently) thereby gets the steps it missed too.
 *
 * Sub-agents' own text and tools are not shown (the parent's tool part stands for the child); what
 * they ask is (a synthetic part). A handoff (DESIGN §27) is a `message-metadata` chunk naming the
 * agent that speaks from then on; `finish` names the one playing at the end. An answer that came after its interaction expired turns its part
 * into an `output-error` saying so: the run went on without it.
 */
import type { AgentEvent, AnyAgent, TurnResult } from '@turnkit/core';
import type { UIFinishReason, UIMessageChunk } from './chunks.js';
import type { UIMessageLike } from './client.js';
import {
  assistantStart,
  assistantView,
  callInput,
  parseJson,
  type StepView,
  type ToolPartView,
  turnkitMetadata,
} from './view.js';

/** What the client holds of the message a stream continues: its steps and its tool parts' states. */
export interface KnownMessage {
  steps: number;
  parts: Map<string, string>;
}

/** What a client's assistant message already shows (nothing, for a new message). */
export function knownMessage(message: UIMessageLike | undefined): KnownMessage {
  const known: KnownMessage = { steps: 0, parts: new Map() };
  for (const part of message?.parts ?? []) {
    if (part.type === 'step-start') known.steps++;
    else if (typeof part.toolCallId === 'string') known.parts.set(part.toolCallId, part.state ?? '');
  }
  return known;
}

/** Options of the writer that turns a turn into AI SDK UI message chunks (the `useChat` stream). */
export interface WriterOptions {
  /** The agent whose question tool's calls are shown with their input normalised (`{ questions }`); default: the calls' parsed arguments. */
  agent?: AnyAgent;
  /** The assistant message the client continues, if any. */
  continuing?: UIMessageLike;
  /** Put the run's snapshot in the finish metadata (client-held mode). */
  withSnapshot?: boolean;
}

type Resolved = Extract<AgentEvent, { type: 'interaction_resolved' }>;

const FINAL = new Set(['output-available', 'output-error', 'output-denied']);

const FINISH_REASONS: Record<TurnResult<unknown>['status'], UIFinishReason> = {
  completed: 'stop',
  needs_input: 'tool-calls',
  failed: 'error',
  max_steps: 'length',
  budget_exceeded: 'length',
  // A beforeModel hook denied the model call (DESIGN §26).
  blocked: 'content-filter',
  aborted: 'other',
  running: 'other',
};

function expiredText(kind: Resolved['kind']): string {
  const what = kind === 'approval' ? 'approval' : kind === 'input' ? 'form' : 'question';
  return `This ${what} expired before the answer arrived, so the answer was not used: the assistant was told it timed out and went on.`;
}

/** Writes the chunks of one turn through `push`: `start()`, each event, then `end(result)`. */
export class TurnChunkWriter {
  private readonly known: KnownMessage;
  private readonly resolutions: Resolved[] = [];
  private stepOpen = false;
  private textId: string | null = null;
  private liveSteps = 0;

  constructor(
    private readonly push: (chunk: UIMessageChunk) => void,
    private readonly options: WriterOptions = {},
  ) {
    this.known = knownMessage(options.continuing);
  }

  /** Opens the message (a continuation keeps the client's message id). */
  start(): void {
    this.push({ type: 'start' });
  }

  /** One event of the turn, as it happens. */
  event(event: AgentEvent): void {
    if (event.type === 'interaction_resolved') this.resolutions.push(event);
    if (event.agentPath.length !== 1) return;
    switch (event.type) {
      // Who speaks from here on (DESIGN §27): the client merges it into the message's metadata.
      case 'handoff':
        this.push({ type: 'message-metadata', messageMetadata: { turnkit: { activeAgent: event.to } } });
        break;
      case 'model_started':
        this.closeText();
        this.finishStep();
        this.push({ type: 'start-step' });
        this.stepOpen = true;
        this.liveSteps++;
        break;
      case 'model_delta':
        if (this.textId === null) {
          this.textId = `text-${event.seq}`;
          this.push({ type: 'text-start', id: this.textId });
        }
        this.push({ type: 'text-delta', id: this.textId, delta: event.text });
        break;
      case 'model_finished':
        this.closeText();
        for (const call of event.message?.tool_calls ?? []) {
          if (this.known.parts.has(call.id)) continue;
          const input = callInput(this.options.agent, call);
          this.push({
            type: 'tool-input-available',
            toolCallId: call.id,
            toolName: call.function.name,
            input,
          });
          this.known.parts.set(call.id, 'input-available');
        }
        break;
    }
  }

  /** The turn's end: the parts the client lacks, then `finish` with the run's metadata. */
  end(result: TurnResult<unknown>): void {
    this.closeText();
    const view = assistantView(
      result.messages,
      assistantStart(result.messages),
      result.pending,
      this.options.agent,
    );
    this.applyResolutions();
    view.steps.forEach((step, index) => {
      if (this.liveSteps === 0 && index >= this.known.steps) this.replayStep(step, index);
      else for (const tool of step.tools) this.sync(tool);
    });
    for (const tool of view.synthetic) this.sync(tool);
    this.finishStep();
    const metadata = turnkitMetadata(result, this.options.withSnapshot === true);
    this.push({
      type: 'finish',
      finishReason: FINISH_REASONS[result.status],
      messageMetadata: { turnkit: metadata },
    });
    if (result.status === 'failed' || result.status === 'blocked') {
      this.push({ type: 'error', errorText: result.error?.message ?? 'The turn failed. Try again later.' });
    }
  }

  /** The turn could not end normally (e.g. the store failed): closes what is open and reports it. */
  fail(errorText: string): void {
    this.closeText();
    this.finishStep();
    this.push({ type: 'error', errorText });
  }

  private closeText(): void {
    if (this.textId === null) return;
    this.push({ type: 'text-end', id: this.textId });
    this.textId = null;
  }

  private finishStep(): void {
    if (!this.stepOpen) return;
    this.push({ type: 'finish-step' });
    this.stepOpen = false;
  }

  /** Answers that came too late, defaults taken at expiry, and sub-agent approvals rejected. */
  private applyResolutions(): void {
    for (const event of this.resolutions) {
      const { interactionId, toolCallId } = event;
      const partId = this.known.parts.has(interactionId)
        ? interactionId
        : event.agentPath.length === 1 && this.known.parts.has(toolCallId)
          ? toolCallId
          : null;
      if (partId === null) continue;
      if (event.resolution === 'timed_out') {
        this.push({ type: 'tool-output-error', toolCallId: partId, errorText: expiredText(event.kind) });
        this.known.parts.set(partId, 'output-error');
      } else if (event.resolution === 'defaulted') {
        this.push({ type: 'tool-output-available', toolCallId: partId, output: parseJson(event.result) });
        this.known.parts.set(partId, 'output-available');
      } else if (event.resolution === 'rejected' && partId === interactionId) {
        this.push({ type: 'tool-output-denied', toolCallId: partId });
        this.known.parts.set(partId, 'output-denied');
      }
    }
  }

  /** A step the client never received (its response was lost): sent whole. */
  private replayStep(step: StepView, index: number): void {
    this.finishStep();
    this.push({ type: 'start-step' });
    this.stepOpen = true;
    if (step.text !== '') {
      const id = `text-step-${index}`;
      this.push({ type: 'text-start', id });
      this.push({ type: 'text-delta', id, delta: step.text });
      this.push({ type: 'text-end', id });
    }
    for (const tool of step.tools) this.sync(tool);
  }

  /** Brings one tool part from the state the client holds to the server's. */
  private sync(tool: ToolPartView): void {
    const { toolCallId } = tool;
    const known = this.known.parts.get(toolCallId);
    // A final state the client holds stays: its own answer, or what this writer already sent.
    if (known === tool.state || (known !== undefined && FINAL.has(known))) return;
    if (known === undefined || known === 'input-streaming') {
      this.push({
        type: 'tool-input-available',
        toolCallId,
        toolName: tool.toolName,
        input: tool.input ?? {},
      });
    }
    const requested = known === 'approval-requested' || known === 'approval-responded';
    switch (tool.state) {
      case 'approval-requested':
        if (!requested) this.requestApproval(tool);
        break;
      case 'output-available':
        this.push({ type: 'tool-output-available', toolCallId, output: tool.output ?? null });
        break;
      case 'output-error':
        this.push({ type: 'tool-output-error', toolCallId, errorText: tool.errorText ?? 'The tool failed.' });
        break;
      case 'output-denied':
        if (!requested) this.requestApproval(tool);
        this.push({ type: 'tool-output-denied', toolCallId });
        break;
    }
    this.known.parts.set(toolCallId, tool.state);
  }

  private requestApproval(tool: ToolPartView): void {
    this.push({
      type: 'tool-approval-request',
      approvalId: tool.approvalId ?? tool.toolCallId,
      toolCallId: tool.toolCallId,
    });
  }
}

/**
 * The UI message stream chunks of a finished turn: what `aiSdkHandler` streams for it, for a server
 * of your own. It takes the `TurnResult` (its `events`, and the transcript for the tool inputs and
 * outputs that events do not carry). With `continuing` (the assistant message the client re-posted),
 * parts the client already holds are not sent again; with `withSnapshot`, the finish metadata
 * carries `turnkit.snapshot` (client-held mode).
 */
export function toUIMessageChunks(
  result: TurnResult<unknown>,
  options: WriterOptions = {},
): UIMessageChunk[] {
  const chunks: UIMessageChunk[] = [];
  const writer = new TurnChunkWriter((chunk) => chunks.push(chunk), options);
  writer.start();
  for (const event of result.events) writer.event(event);
  writer.end(result);
  return chunks;
}
