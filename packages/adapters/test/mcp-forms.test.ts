/**
 * How `mcpServer` puts a paused run's interactions to an MCP client (one form elicitation each) and
 * reads the client's answers back: questions (single-, multi-select, free text, "other"),
 * approvals, input forms; `decline` rejects an approval and cancels the rest, `cancel` cancels.
 */
import type { PendingInteraction } from '@turnkit/core';
import { describe, expect, it } from 'vitest';
import { elicitations, responsesFrom } from '../src/protocols/mcp/forms.js';

const base = {
  toolCallId: 'call_1',
  agentPath: ['lab'],
  createdAt: '2026-01-01T00:00:00.000Z',
  expiresAt: null,
};
const question: PendingInteraction = {
  ...base,
  id: 'call_1',
  kind: 'question',
  toolName: 'AskUserQuestion',
  payload: {
    questions: [
      {
        id: 'q0',
        question: 'Which tests?',
        header: 'Tests',
        multiSelect: true,
        options: [
          { label: 'Mycoplasma', description: 'PCR' },
          { label: 'STR', description: '' },
        ],
      },
      { id: 'q1', question: 'Which box?', header: 'Box', multiSelect: false, options: [] },
    ],
  },
};
const approval: PendingInteraction = {
  ...base,
  id: 'call_2',
  kind: 'approval',
  toolName: 'record_thaw',
  payload: { toolName: 'record_thaw', input: { vials: 2 }, reason: 'Removes 2 vials' },
};
const form: PendingInteraction = {
  ...base,
  id: 'call_3',
  kind: 'input',
  toolName: 'label',
  payload: { message: 'Label text?', schema: { type: 'object', properties: { text: { type: 'string' } } } },
};

describe('elicitations', () => {
  it('makes one form per interaction, keyed by its id', () => {
    const requests = elicitations([question, approval, form], 'Note: ');
    expect(Object.keys(requests)).toEqual(['call_1', 'call_2', 'call_3']);
    expect(requests.call_1).toEqual({
      method: 'elicitation/create',
      params: {
        mode: 'form',
        message: 'Note: Which tests?\nWhich box?',
        requestedSchema: {
          type: 'object',
          properties: {
            q0: {
              type: 'array',
              title: 'Tests',
              description: 'Which tests?',
              items: {
                anyOf: [
                  { const: 'Mycoplasma', title: 'Mycoplasma — PCR' },
                  { const: 'STR', title: 'STR' },
                ],
              },
            },
            q0_other: expect.objectContaining({ type: 'string', title: 'Tests: other' }),
            q1: { type: 'string', title: 'Box', description: 'Which box?' },
          },
          required: ['q1'],
        },
      },
    });
    expect(requests.call_2?.params).toMatchObject({
      message: 'Note: Approve record_thaw?\nRemoves 2 vials\nInput: {"vials":2}',
      requestedSchema: {
        properties: { approved: { type: 'boolean' }, reason: { type: 'string' } },
        required: ['approved'],
      },
    });
    expect(requests.call_3?.params).toMatchObject({
      message: 'Note: Label text?',
      requestedSchema: { type: 'object', properties: { text: { type: 'string' } } },
    });
  });
});

describe('responsesFrom', () => {
  it('turns accepted content into answers, decisions and form values', () => {
    const responses = responsesFrom([question, approval, form], {
      call_1: {
        action: 'accept',
        content: { q0: ['STR', 'Mycoplasma'], q0_other: 'Sterility', q1: 'B2-14' },
      },
      call_2: { action: 'accept', content: { approved: false, reason: 'Only one left' } },
      call_3: { action: 'accept', content: { text: 'K562 #7' } },
    });
    expect(responses).toEqual([
      {
        id: 'call_1',
        type: 'answer',
        answers: [{ selected: ['STR', 'Mycoplasma'], other: 'Sterility' }, 'B2-14'],
      },
      { id: 'call_2', type: 'reject', rationale: 'Only one left' },
      { id: 'call_3', type: 'input', value: { text: 'K562 #7' } },
    ]);
  });

  it('skips a question left blank, and leaves an interaction without a response pending', () => {
    const responses = responsesFrom([question, approval], {
      call_1: { action: 'accept', content: { q1: 'B1' } },
    });
    expect(responses).toEqual([{ id: 'call_1', type: 'answer', answers: [{ skipped: true }, 'B1'] }]);
  });

  it('decline rejects an approval and cancels a question; cancel cancels', () => {
    const responses = responsesFrom([question, approval, form], {
      call_1: { action: 'decline' },
      call_2: { action: 'decline' },
      call_3: { action: 'cancel' },
    });
    expect(responses).toEqual([
      { id: 'call_1', type: 'cancel', reason: 'Declined by the user.' },
      { id: 'call_2', type: 'reject', rationale: 'Declined by the user.' },
      { id: 'call_3', type: 'cancel', reason: 'Cancelled by the user.' },
    ]);
  });
});
