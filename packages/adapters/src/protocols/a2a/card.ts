/**
 * The agent card of an agent served over A2A (DESIGN §29): who it is (the app's `card` options),
 * what it can do (a skill for the agent, one per tool), where its JSON-RPC endpoint is (filled from
 * the request when the app gives no `url`), which protocol versions it speaks there (1.0, and 0.3
 * through the SDK's compatibility layer) and how a caller authenticates (the handler's bearer token).
 */
import type { AgentCard, AgentSkill } from '@a2a-js/sdk';
import type { AnyAgent } from '@turnkit/core';

/** One skill of the card, as the app describes it. */
export interface A2aSkill {
  id: string;
  name: string;
  description: string;
  tags?: string[];
  examples?: string[];
}

/** What the app says about its agent on the card; the rest comes from the agent and the handler. */
export interface A2aCardOptions {
  /** The agent's public name (default: the agent's `name`). */
  name?: string;
  /** What the agent does, for the agents that will call it. */
  description: string;
  /** The agent's own version (default `1.0.0`). */
  version?: string;
  /**
   * The JSON-RPC endpoint's public URL. Default: the request's origin + the handler's `basePath` +
   * the mount's `path` (set it behind a proxy that changes the host).
   */
  url?: string;
  /** The skills (default: one for the agent from `description`, one per tool from its description). */
  skills?: A2aSkill[];
  provider?: { organization: string; url: string };
  documentationUrl?: string;
  iconUrl?: string;
}

/** The protocol versions the endpoint speaks: A2A 1.0, and 0.3 through the SDK's compatibility layer. */
export const A2A_VERSIONS = ['1.0', '0.3'] as const;

const MODES = ['text/plain', 'application/json'];

function skill(from: A2aSkill): AgentSkill {
  return {
    id: from.id,
    name: from.name,
    description: from.description,
    tags: from.tags ?? [],
    examples: from.examples ?? [],
    inputModes: MODES,
    outputModes: MODES,
    securityRequirements: [],
  };
}

/** The default skills: the agent itself, then each of its tools. */
function defaultSkills(agent: AnyAgent, card: A2aCardOptions): A2aSkill[] {
  const tools = agent.tools.map((tool) => ({
    id: `${agent.name}.${tool.name}`,
    name: tool.name,
    description: tool.description || tool.name,
    tags: ['tool'],
  }));
  return [
    { id: agent.name, name: card.name ?? agent.name, description: card.description, tags: ['agent'] },
    ...tools,
  ];
}

/** The card, with its endpoint at `url`; `bearer` when the handler checks a bearer token. */
export function agentCard(agent: AnyAgent, card: A2aCardOptions, url: string, bearer: boolean): AgentCard {
  return {
    name: card.name ?? agent.name,
    description: card.description,
    version: card.version ?? '1.0.0',
    supportedInterfaces: A2A_VERSIONS.map((protocolVersion) => ({
      url,
      protocolBinding: 'JSONRPC',
      tenant: '',
      protocolVersion,
    })),
    provider: card.provider,
    ...(card.documentationUrl ? { documentationUrl: card.documentationUrl } : {}),
    ...(card.iconUrl ? { iconUrl: card.iconUrl } : {}),
    capabilities: { streaming: true, pushNotifications: false, extensions: [], extendedAgentCard: false },
    securitySchemes: bearer
      ? {
          bearer: {
            scheme: {
              $case: 'httpAuthSecurityScheme',
              value: { description: 'The handler token', scheme: 'Bearer', bearerFormat: '' },
            },
          },
        }
      : {},
    securityRequirements: bearer ? [{ schemes: { bearer: { list: [] } } }] : [],
    defaultInputModes: MODES,
    defaultOutputModes: MODES,
    skills: (card.skills ?? defaultSkills(agent, card)).map(skill),
    signatures: [],
  };
}
