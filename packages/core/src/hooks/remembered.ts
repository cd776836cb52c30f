/**
 * Approvals remembered for the run (`remember: 'run'`, DESIGN §26): a tool's own approval and a
 * hook's `beforeTool` review keep a key, and later calls of that tool with the same key pass. A
 * tool's own approval is remembered with no hook in the program, so this stays out of the hook
 * machinery that hooks carry (runtime.ts).
 */
/** Who a tool's own approval remembered for the run (`remember: 'run'`) is kept under. */
export const TOOL_APPROVAL = 'approval';

/** The key of an approval remembered for the run: who remembers it (a hook, or the tool's approval), the tool, the input's key. */
export function rememberKey(owner: string, toolName: string, inputKey: string): string {
  return JSON.stringify([owner, toolName, inputKey]);
}

/** JSON text of a value with object keys sorted, so equal inputs give equal keys whatever their order. */
export function canonicalJson(value: unknown): string {
  return (
    JSON.stringify(value, (_key, item: unknown) =>
      typeof item === 'object' && item !== null && !Array.isArray(item)
        ? Object.fromEntries(Object.entries(item).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
        : item,
    ) ?? 'null'
  );
}

/** The key a `remember: 'run'` approval keeps for an input: `rememberBy`'s, else the input itself. */
export function inputKey(rememberBy: ((input: unknown) => string) | undefined, input: unknown): string {
  if (rememberBy) {
    try {
      return String(rememberBy(input));
    } catch {
      // A key function that fails remembers nothing wider than the input itself.
    }
  }
  return canonicalJson(input);
}

/**
 * Whether an approval remembered for the run (its keys: `remembered`) covers `owner`'s ask on this
 * tool and input. `key` makes the input's key (sorted JSON, or `rememberBy`'s): called only when the
 * run remembers something, since most runs remember nothing and every guarded call asks.
 */
export function isRemembered(
  remembered: readonly string[] | undefined,
  owner: string,
  toolName: string,
  key: () => string,
): boolean {
  if (remembered === undefined || remembered.length === 0) return false;
  return remembered.includes(rememberKey(owner, toolName, key()));
}
