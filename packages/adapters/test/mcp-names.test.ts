/**
 * MCP tool names → TurnKit tool names (`[A-Za-z0-9_-]{1,64}`): dots and other characters become
 * `_`, long names keep their start and gain a hash, collisions are told apart by the hash of the
 * MCP name, and the mapping of a name does not change with what else the server lists.
 */
import { describe, expect, it } from 'vitest';
import { mapToolNames } from '../src/protocols/mcp/index.js';

const VALID = /^[A-Za-z0-9_-]{1,64}$/;

describe('mapToolNames', () => {
  it('replaces dots and other characters TurnKit does not allow with _', () => {
    const names = mapToolNames(['github.create_issue', 'fs.read-file', 'bad name!', 'plain_name']);
    expect([...names.values()]).toEqual(['github_create_issue', 'fs_read-file', 'bad_name_', 'plain_name']);
  });

  it('shortens a name over 64 characters to its start plus a hash of the whole name', () => {
    const long = `service.${'x'.repeat(80)}`;
    const longer = `service.${'x'.repeat(81)}`;
    const names = mapToolNames([long, longer]);
    expect(names.get(long)).toMatch(/^service_x+_[0-9a-f]{8}$/);
    expect(names.get(long)).toHaveLength(64);
    expect(names.get(long)).not.toBe(names.get(longer));
    expect(mapToolNames([long]).get(long)).toBe(names.get(long));
  });

  it('keeps a valid name and hashes the mapped names that collide with it or with each other', () => {
    const names = mapToolNames(['a.b', 'a_b', 'a b']);
    expect(names.get('a_b')).toBe('a_b');
    expect(names.get('a.b')).toMatch(/^a_b_[0-9a-f]{8}$/);
    expect(names.get('a b')).toMatch(/^a_b_[0-9a-f]{8}$/);
    expect(new Set(names.values()).size).toBe(3);
    // Order of listing does not change who keeps the plain name.
    expect(mapToolNames(['a_b', 'a.b']).get('a_b')).toBe('a_b');
  });

  it('puts the prefix in front and keeps every name valid', () => {
    const names = mapToolNames(['search', 'x.'.repeat(40)], 'gh_');
    expect(names.get('search')).toBe('gh_search');
    for (const name of names.values()) expect(name).toMatch(VALID);
  });
});
