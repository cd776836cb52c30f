/**
 * What a caller's message says to a paused task (DESIGN §29): `DataPart`s shaped as the HTTP
 * handler's answer / approve / reject / cancel / input bodies plus their `type` (`{ type: 'answer',
 * answers }`, `{ type: 'approve' }`, …, with `id` when several interactions wait), or — when one
 * question waits alone — text: an option's label (any case) picks it, any other text is the Other
 * answer. A message that is neither is refused with what to send instead; nothing changes.
 */
import type { Message } from '@a2a-js/sdk';
import { RequestMalformedError } from '@a2a-js/sdk/errors';
import type { PendingInteraction, QuestionAnswer, ResponseInput } from '@turnkit/core';
import { z } from 'zod';
import { bodySchemas } from '../../http/index.js';

const bodies = bodySchemas(false);

/** One response, as a `DataPart` carries it: an HTTP body of the handler plus its `type`. */
const responseSchema = z.discriminatedUnion('type', [
  bodies.answer.extend({ type: z.literal('answer') }),
  bodies.approve.extend({ type: z.literal('approve') }),
  bodies.reject.extend({ type: z.literal('reject') }),
  bodies.cancel.extend({ type: z.literal('cancel') }),
  bodies.input.extend({ type: z.literal('input') }),
]);

const HOW =
  'Answer with a DataPart shaped as { "type": "answer", "answers": {…} }, { "type": "approve" }, { "type": "reject", "rationale"?: "…" }, { "type": "cancel" } or { "type": "input", "value": … } (with "id" when several interactions wait)';

/** The text of a message's text parts. */
export function messageText(message: Message): string {
  return message.parts
    .map((part) => (part.content?.$case === 'text' ? part.content.value : ''))
    .filter((text) => text !== '')
    .join('\n');
}

/** The values of a message's data parts. */
export function messageData(message: Message): unknown[] {
  return message.parts.flatMap((part) => (part.content?.$case === 'data' ? [part.content.value] : []));
}

function fromData(values: unknown[]): ResponseInput[] {
  const items = values.flatMap((value) => (Array.isArray(value) ? value : [value]));
  return items.map((item, index) => {
    const parsed = responseSchema.safeParse(item);
    if (parsed.success) {
      const { id, ...rest } = parsed.data;
      return (id === undefined ? rest : { id, ...rest }) as ResponseInput;
    }
    const issues = parsed.error.issues
      .map((issue) => `\n- ${issue.path.join('.') || '(data)'}: ${issue.message}`)
      .join('');
    throw new RequestMalformedError(`DataPart response ${index} is not a response:${issues}\n${HOW}.`);
  });
}

/** A text answer to the one question of the one pending interaction. */
function fromText(text: string, pending: PendingInteraction[]): ResponseInput[] {
  const only = pending.length === 1 ? pending[0]! : undefined;
  const questions =
    only?.kind === 'question' ? (only.payload as { questions: PendingQuestion[] }).questions : [];
  if (!only || questions.length !== 1) {
    const what = pending.map((item) => `${item.id} (${item.kind})`).join(', ');
    throw new RequestMalformedError(
      `A text answer fits a task waiting for one question; this one waits for ${what}. ${HOW}.`,
    );
  }
  const question = questions[0]!;
  const wanted = text.trim();
  const label = question.options.find((option) => option.label.toLowerCase() === wanted.toLowerCase())?.label;
  let answer: QuestionAnswer;
  if (label !== undefined) answer = question.multiSelect ? [label] : label;
  else answer = { selected: [], other: wanted };
  return [{ id: only.id, type: 'answer', answers: { [question.id]: answer } }];
}

type PendingQuestion = { id: string; options: { label: string }[]; multiSelect: boolean };

/** The responses a message gives to a paused task's pending interactions. */
export function responsesFrom(message: Message, pending: PendingInteraction[]): ResponseInput[] {
  const data = messageData(message);
  if (data.length > 0) return fromData(data);
  const text = messageText(message);
  if (text.trim() === '') throw new RequestMalformedError(`The message holds no answer. ${HOW}.`);
  return fromText(text, pending);
}
