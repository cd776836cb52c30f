/**
 * The arrow-key prompts in a real terminal (tmux, see `terminal.ts`): arrows, space and enter,
 * text rows, digits, hostile text, and quitting with Esc.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CLI, cleanup, runCli, runIdOf, tempDir, toolResults, transcript } from './helpers.js';
import { approveAndQuit, hasTmux, inCI, open, quitAtPrompt } from './terminal.js';

afterAll(cleanup);

describe.skipIf(!hasTmux && !inCI)('in a real terminal (tmux)', () => {
  it('answers with arrows, space and enter: a single-select, a multi-select, then an approval', async () => {
    const dir = tempDir();
    const terminal = open(`node ${CLI}`, dir);
    await terminal.waitFor('❯ (•) 1. K562 (Recommended)');
    terminal.keys('Down', 'Enter');
    await terminal.waitFor('✔ Cell line › K562-dTAG');

    await terminal.waitFor('╭─ Follow-ups ');
    terminal.keys('Space', 'Down', 'Down', 'Space');
    const form = await terminal.waitFor('❯ [x] 3. Notify lab manager');
    expect(form).toContain('│   [x] 1. Mycoplasma test');
    expect(form).toContain('│   [ ] 2. Viability count');
    expect(form).toContain('│   [ ] 0. Other (custom input):');
    expect(form).toContain('space toggle · enter confirm');
    terminal.keys('Enter');
    await terminal.waitFor('✔ Follow-ups › Mycoplasma test, Notify lab manager');

    const approval = await terminal.waitFor('enter: Approve');
    expect(approval).toContain('│ Tool    record_thaw');
    expect(approval).toContain('│ ❯ (•) Approve');
    terminal.keys('Enter');
    await terminal.waitFor('Agent › Done: thawed 1 vial of K562-dTAG from box 3 (B1), 1 left.');
    const end = await quitAtPrompt(terminal);

    expect(toolResults(await transcript(dir, runIdOf(end)), 'AskUserQuestion')).toEqual([
      '{"answers":{"Cell line":"K562-dTAG","Follow-ups":"Mycoplasma test, Notify lab manager"}}',
    ]);
  });

  it('chooses rows 1 and 3 of a multi-select when "1,3" is typed, as a piped line does', async () => {
    const dir = tempDir();
    const terminal = open(`node ${CLI}`, dir);
    await terminal.waitFor('❯ (•) 1. K562 (Recommended)');
    terminal.keys('Enter');
    await terminal.waitFor('╭─ Follow-ups ');
    terminal.type('1,3');
    const form = await terminal.waitFor('❯ [x] 3. Notify lab manager');
    expect(form).toContain('│   [x] 1. Mycoplasma test');
    expect(form).toContain('│   [ ] 2. Viability count');
    terminal.keys('Enter');
    await terminal.waitFor('✔ Follow-ups › Mycoplasma test, Notify lab manager');
    expect(await approveAndQuit(terminal, dir)).toEqual([
      '{"answers":{"Cell line":"K562 (Recommended)","Follow-ups":"Mycoplasma test, Notify lab manager"}}',
    ]);
  });

  it('takes a list typed with Chinese commas too, and a digit alone still only moves (ask)', async () => {
    const dir = tempDir();
    const questions = {
      questions: [
        { question: 'Which tasks?', header: 'Tasks', options: ['Count', 'Test', 'Label'], multiSelect: true },
        { question: 'Which racks?', header: 'Racks', options: ['A', 'B', 'C'], multiSelect: true },
      ],
    };
    writeFileSync(join(dir, 'questions.json'), JSON.stringify(questions));
    const terminal = open(`node ${CLI} ask "$(cat questions.json)" > answers.json`, dir);
    await terminal.waitFor('❯ [ ] 1. Count');
    terminal.type('3，2');
    await terminal.waitFor('❯ [x] 2. Test');
    terminal.keys('Enter');
    await terminal.waitFor('✔ Tasks › Test, Label');
    await terminal.waitFor('❯ [ ] 1. A');
    terminal.type('2');
    await terminal.waitFor('❯ [ ] 2. B');
    terminal.keys('Space', 'Down', 'Space', 'Enter');
    await terminal.waitFor('EXIT=0');
    expect(readFileSync(join(dir, 'answers.json'), 'utf8')).toBe(
      '{"answers":{"Tasks":"Test, Label","Racks":"B, C"}}\n',
    );
  });

  it('types Other and a note on the inline text rows of the same panel (ask)', async () => {
    const dir = tempDir();
    const questions = {
      questions: [
        {
          question: 'Which language should the CLI use?',
          header: 'Language',
          options: [
            { label: 'TypeScript (Recommended)', description: 'Same as the SDK' },
            { label: 'Go', description: 'One static binary' },
          ],
          multiSelect: false,
        },
      ],
    };
    writeFileSync(join(dir, 'questions.json'), JSON.stringify(questions));
    const terminal = open(`node ${CLI} ask "$(cat questions.json)" > answers.json`, dir);
    await terminal.waitFor('❯ (•) 1. TypeScript (Recommended)');
    terminal.keys('0');
    terminal.type('Rust');
    terminal.keys('Down');
    terminal.type('for the CLI');
    const form = await terminal.waitFor('Note (optional): for the CLI');
    expect(form).toContain('│   (•) 0. Other (custom input): Rust');
    terminal.keys('Enter');
    const end = await terminal.waitFor('EXIT=0');
    expect(end).toContain('✔ Language › “Rust” (for the CLI)');
    expect(readFileSync(join(dir, 'answers.json'), 'utf8')).toBe(
      '{"answers":{"Language":"Other (custom: Rust) (note: for the CLI)"}}\n',
    );
  });

  it('jumps by row number, also over number labels, and past 9 with two quick digits', async () => {
    const dir = tempDir();
    const questions = {
      questions: [
        { question: 'Which rack?', header: 'Rack', options: ['2', '1'] },
        {
          question: 'Which box?',
          header: 'Box',
          options: Array.from({ length: 12 }, (_, i) => `Box ${i + 1}`),
        },
      ],
    };
    writeFileSync(join(dir, 'questions.json'), JSON.stringify(questions));
    const terminal = open(`ASK_MAX_OPTIONS=12 node ${CLI} ask "$(cat questions.json)" > answers.json`, dir);
    await terminal.waitFor('❯ (•) 1. 2');
    terminal.keys('2');
    await terminal.waitFor('❯ (•) 2. 1');
    terminal.keys('1');
    await terminal.waitFor('❯ (•) 1. 2');
    terminal.keys('Enter');
    await terminal.waitFor('✔ Rack › 2');
    await terminal.waitFor('❯ (•)  1. Box 1');
    terminal.keys('1', '2');
    await terminal.waitFor('❯ (•) 12. Box 12');
    terminal.keys('Enter');
    await terminal.waitFor('EXIT=0');
    expect(readFileSync(join(dir, 'answers.json'), 'utf8')).toBe('{"answers":{"Rack":"2","Box":"Box 12"}}\n');
  });

  it("shows a question's seed 003 context (hint, refs) in the live card", async () => {
    const dir = tempDir();
    const questions = {
      questions: [
        {
          question: 'Which box should the vial come from?',
          header: 'Box',
          options: ['Box 2', 'Box 6'],
          context: { refs: ['freezer-2/rack-B'], hint: 'Both boxes hold HEK293T' },
        },
      ],
    };
    writeFileSync(join(dir, 'questions.json'), JSON.stringify(questions));
    const terminal = open(`node ${CLI} ask "$(cat questions.json)" > answers.json`, dir);
    const card = await terminal.waitFor('❯ (•) 1. Box 2');
    expect(card).toContain('│ Context: Both boxes hold HEK293T');
    expect(card).toContain('│ Refs: freezer-2/rack-B');
    terminal.keys('Enter');
    await terminal.waitFor('EXIT=0');
    expect(readFileSync(join(dir, 'answers.json'), 'utf8')).toBe('{"answers":{"Box":"Box 2"}}\n');
  });

  it('refuses hostile model text in a question without drawing it: the title stays, the screen is not cleared', async () => {
    const dir = tempDir();
    const hostile = '\u001b]0;pwned\u0007\u001b[2J';
    const questions = {
      questions: [
        {
          question: `Which one?${hostile}`,
          header: 'Pick',
          options: [
            { label: 'A', description: 'first' },
            { label: 'B', description: 'second' },
          ],
        },
      ],
    };
    writeFileSync(join(dir, 'questions.json'), JSON.stringify(questions));
    const terminal = open(`echo BEFORE; node ${CLI} ask "$(cat questions.json)" > answers.json`, dir);
    await terminal.waitFor('BEFORE');
    const before = terminal.title();
    const end = await terminal.waitFor('EXIT=1');
    expect(end).toContain('- questions[0].question: Contains the control character U+001B');
    expect(terminal.visible()).toContain('BEFORE');
    expect(terminal.title()).toBe(before);
    expect(terminal.title()).not.toBe('pwned');
    expect(readFileSync(join(dir, 'answers.json'), 'utf8')).toBe('');
  });

  it('quits with Esc mid-question, losing nothing: another process resumes the run', async () => {
    const dir = tempDir();
    const terminal = open(`node ${CLI} --lang zh-CN`, dir);
    await terminal.waitFor('❯ (•) 1. K562（推荐）');
    terminal.keys('Escape');
    const end = await terminal.waitFor('EXIT=0');
    expect(end).toContain('问题暂未回答。没有任何丢失');
    const runId = runIdOf(end);

    const resumed = await runCli(['resume', runId], { input: '2\n3\na\n\n\n', dir });
    expect(resumed.code).toBe(0);
    expect(toolResults(await transcript(dir, runId), 'AskUserQuestion')).toEqual([
      '{"answers":{"细胞系":"K562-dTAG","后续任务":"通知实验室管理员"}}',
    ]);
  });
});
