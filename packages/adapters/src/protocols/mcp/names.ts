/**
 * MCP tool names → TurnKit tool names. MCP allows `[A-Za-z0-9._-]{1,128}` (and servers may
 * register worse); TurnKit (the OpenAI rule) allows `[A-Za-z0-9_-]{1,64}`. Every other character
 * becomes `_`, a name over 64 characters keeps its start and gets a hash suffix, and two MCP names
 * that map to the same TurnKit name are told apart by the hash of the original: the mapping of a
 * name never depends on what else the server lists, except for a collision, and then only the
 * names that collide change.
 */
import { sha256HexSync } from '../../http/index.js';

const MAX_LENGTH = 64;
const HASH_LENGTH = 8;

function hashOf(name: string): string {
  return sha256HexSync(name).slice(0, HASH_LENGTH);
}

/** The name with every character TurnKit does not allow replaced by `_` (`github.create_issue` → `github_create_issue`). */
function sanitize(name: string): string {
  return name.replace(/[^A-Za-z0-9_-]/g, '_') || '_';
}

/** `base` cut so that `_<hash of original>` fits within 64 characters. */
function withHash(base: string, original: string): string {
  return `${base.slice(0, MAX_LENGTH - HASH_LENGTH - 1)}_${hashOf(original)}`;
}

/**
 * The TurnKit name of each MCP tool name, in the order given. `prefix` (already valid, e.g.
 * `github_`) is put in front of every name. A name that needs no change keeps itself; of the names
 * that collide after mapping, those that were changed get the hash of their MCP name as a suffix.
 */
export function mapToolNames(mcpNames: readonly string[], prefix = ''): Map<string, string> {
  const mapped = new Map<string, string>();
  const plain = (name: string) => {
    const candidate = `${prefix}${sanitize(name)}`;
    return candidate.length > MAX_LENGTH ? withHash(candidate, name) : candidate;
  };
  // Names that need no change are taken first, so a server adding `a.b` never renames its `a_b`.
  const taken = new Set<string>();
  for (const name of mcpNames) {
    const candidate = plain(name);
    if (candidate === `${prefix}${name}`) {
      mapped.set(name, candidate);
      taken.add(candidate);
    }
  }
  for (const name of mcpNames) {
    if (mapped.has(name)) continue;
    let candidate = plain(name);
    if (taken.has(candidate)) candidate = withHash(`${prefix}${sanitize(name)}`, name);
    // Two different MCP names with one hash prefix: astronomically rare, but never two tools with one name.
    for (let round = 1; taken.has(candidate); round++) candidate = withHash(candidate, `${name}#${round}`);
    mapped.set(name, candidate);
    taken.add(candidate);
  }
  return new Map(mcpNames.map((name) => [name, mapped.get(name)!]));
}
