/**
 * `modelSettings` (DESIGN §23): checked once where they are given (an agent, a call's options), and
 * merged — the call's over the agent's — into what a model adapter receives as `request.settings`.
 */
import { z } from 'zod';
import { TurnkitError } from '../errors.js';
import type { ModelSettings } from '../types.js';

const settingsSchema = z.strictObject({
  temperature: z.number().min(0).optional(),
  topP: z.number().min(0).max(1).optional(),
  maxOutputTokens: z.int().positive().optional(),
  toolChoice: z
    .union([
      z.enum(['auto', 'none', 'required']),
      z.strictObject({ type: z.literal('function'), name: z.string().min(1) }),
    ])
    .optional(),
  parallelToolCalls: z.boolean().optional(),
  stop: z.array(z.string()).optional(),
  seed: z.int().optional(),
  providerOptions: z.record(z.string(), z.record(z.string(), z.unknown())).optional(),
});

/** Refuses settings no provider could take, naming each wrong field (`CONFIG_INVALID`). */
export function checkModelSettings(owner: string, settings: unknown): ModelSettings {
  const checked = settingsSchema.safeParse(settings);
  if (checked.success) return settings as ModelSettings;
  const lines = checked.error.issues.map(
    (issue) => `- ${['modelSettings', ...issue.path.map(String)].join('.')}: ${issue.message}`,
  );
  throw new TurnkitError('CONFIG_INVALID', `${owner}: invalid modelSettings.\n${lines.join('\n')}`);
}

/** The call's settings over the agent's, field by field (`providerOptions` per provider key). */
export function mergeModelSettings(
  agent: ModelSettings | undefined,
  call: ModelSettings | undefined,
): ModelSettings | undefined {
  if (!call) return agent;
  if (!agent) return call;
  const merged: ModelSettings = { ...agent, ...call };
  if (agent.providerOptions && call.providerOptions) {
    const providerOptions = { ...agent.providerOptions };
    for (const [provider, options] of Object.entries(call.providerOptions)) {
      providerOptions[provider] = { ...providerOptions[provider], ...options };
    }
    merged.providerOptions = providerOptions;
  }
  return merged;
}
