/**
 * What a form's JSON Schema may cost to check a value with (issue 26 item 7). A schema may come from
 * a hostile MCP server's elicitation, or an unsigned snapshot, and zod turns each `pattern` into a
 * JavaScript RegExp, whose backtracking can take exponential time on a short value (`^(a+)+$` on 31
 * characters froze a handler for 42 s). So a schema is refused, when it is asked with and again
 * before a value is checked, unless it is small (depth, nodes) and each pattern is short and free of
 * what makes backtracking super-linear: a quantified group holding a quantifier or an alternation
 * (`(a+)+`, `(a|aa)*`), backreferences and lookarounds.
 */

/** Deepest nesting of a form's JSON Schema. */
export const FORM_SCHEMA_MAX_DEPTH = 32;
/** Most objects, arrays and values in a form's JSON Schema. */
export const FORM_SCHEMA_MAX_NODES = 2_000;
/** Longest `pattern` (characters). */
export const FORM_PATTERN_MAX_LENGTH = 512;

/** Why a quantifier starts at `index` of `pattern`, if one does (`*`, `+`, `{n,}`, `{n,m}`). */
function repeatsAt(pattern: string, index: number): boolean {
  const char = pattern[index];
  if (char === '*' || char === '+') return true;
  if (char !== '{') return false;
  const bound = /^\{(\d+)(,(\d*))?\}/.exec(pattern.slice(index));
  return bound !== null && bound[2] !== undefined && (bound[3] === '' || Number(bound[3]) > 1);
}

/** Why `pattern` could make backtracking super-linear, or null when it cannot. */
export function unsafePattern(pattern: string): string | null {
  if (pattern.length > FORM_PATTERN_MAX_LENGTH) return `is longer than ${FORM_PATTERN_MAX_LENGTH} characters`;
  if (/\\[1-9]|\\k</.test(pattern)) return 'uses a backreference';
  if (/\(\?<?[=!]/.test(pattern)) return 'uses a lookaround';
  // Per open group: whether it holds a quantifier or an alternation.
  const groups: boolean[] = [];
  for (let index = 0; index < pattern.length; index++) {
    const char = pattern[index];
    if (char === '\\') {
      index++;
    } else if (char === '[') {
      // A character class: skip to its closing bracket (escapes included).
      for (index++; index < pattern.length && pattern[index] !== ']'; index++) {
        if (pattern[index] === '\\') index++;
      }
    } else if (char === '(') {
      groups.push(false);
    } else if (char === '|' || repeatsAt(pattern, index)) {
      if (groups.length > 0) groups[groups.length - 1] = true;
    } else if (char === ')') {
      const inner = groups.pop() ?? false;
      if (inner && repeatsAt(pattern, index + 1)) return 'repeats a group that itself repeats or alternates';
      if (inner && groups.length > 0) groups[groups.length - 1] = true;
    }
  }
  return null;
}

/** Why a form's JSON Schema is refused (too large, too deep, an unsafe pattern), or null. */
export function unsafeFormSchema(schema: unknown): string | null {
  let nodes = 0;
  const walk = (value: unknown, depth: number, path: string): string | null => {
    if (++nodes > FORM_SCHEMA_MAX_NODES) return `has more than ${FORM_SCHEMA_MAX_NODES} nodes`;
    if (typeof value !== 'object' || value === null) return null;
    if (depth > FORM_SCHEMA_MAX_DEPTH) return `is nested deeper than ${FORM_SCHEMA_MAX_DEPTH} levels`;
    const record = value as Record<string, unknown>;
    if (!Array.isArray(value)) {
      const patterns = [
        ...(typeof record.pattern === 'string' ? [record.pattern] : []),
        ...(typeof record.patternProperties === 'object' && record.patternProperties !== null
          ? Object.keys(record.patternProperties)
          : []),
      ];
      for (const pattern of patterns) {
        const why = unsafePattern(pattern);
        if (why)
          return `has a pattern at ${path || '(root)'} that ${why} (${JSON.stringify(pattern.slice(0, 40))})`;
      }
    }
    for (const [key, child] of Object.entries(record)) {
      const why = walk(child, depth + 1, `${path}/${key}`);
      if (why) return why;
    }
    return null;
  };
  return walk(schema, 0, '');
}
