/**
 * The offline model of the demo: a scripted model whose every step is one function of the request.
 * It reads the end of the transcript (the user's message, or which tool just answered) and plays
 * the next move of the LN2 story: look the freezer up → ask which lines and which medium → ask to
 * thaw them (an approval; `thaw_vials` itself asks which box when a line is in several) → report.
 * A request to store new vials goes to the storage sub-agent (`storage.ts`), whose report it
 * passes on. It answers in Chinese when the user writes Chinese.
 */
import { setTimeout as delay } from 'node:timers/promises';
import type { ChatMessage, ModelAdapter, ModelRequest } from '@turnkit/core';
import { type ScriptedStep, scriptedModel } from '@turnkit/core/testing';
import { DESK_AGENT, isDeskRequest, sayOnly, type ThawPlanValue } from '@turnkit/demo-models';
import { type CountResult, isCountRequest } from './count.js';
import { boxOf, type ThawResult } from './freezer.js';
import { AGENT_NAME } from './names.js';
import { isStoreRequest, STORAGE_AGENT } from './storage.js';

type Lang = 'en' | 'zh';

/** One line of `query_inventory`'s result. */
interface InventoryRow {
  cellLine: string;
  kind: string;
  boxes: string[];
  vials: number;
}

const TEXT = {
  en: {
    checking: 'Let me check the LN2 freezer first.',
    ask: 'Here is what is left. Two quick choices before I thaw anything:',
    linesHeader: 'Cell lines',
    linesQuestion: 'Which cell lines should I thaw (one vial each)?',
    vials: (line: InventoryRow) =>
      `${line.kind} · ${line.boxes.length > 1 ? 'boxes' : 'box'} ${line.boxes.join(', ')} · ${line.vials} vials left`,
    mediumHeader: 'Medium',
    mediumQuestion: 'Which medium should the vials go into?',
    /** Marks the option the assistant suggests, in the user's language. */
    recommended: ' (Recommended)',
    rpmi: 'For suspension lines such as K562; pre-warmed to 37 °C.',
    dmem: 'For adherent lines such as HeLa and HEK293T.',
    confirm: 'Thawing cannot be undone, so I need your approval.',
    done: 'Done. I thawed',
    into: 'into',
    missing: (names: string) => `${names}: not in this freezer, so nothing was thawed for it.`,
    tip: 'Spin them down within 10 minutes and label the flasks with today’s date.',
    rejected: 'Understood: nothing was thawed.',
    noBox: 'No box was chosen, so nothing was thawed.',
    noChoice: 'No problem, I did not thaw anything. Tell me when you are ready.',
    welcome: 'You are welcome! Ask me whenever you need vials.',
    storing: 'I will ask the storage agent to put them away.',
    handingOver: 'The incubators are the lab desk’s: handing you over.',
    storageReport: (output: string) => `The storage agent reports: ${output}`,
    counting: 'I will count the vials box by box; this takes a moment.',
    counted: (result: CountResult) =>
      `Counted ${result.total} vials: ${Object.entries(result.boxes)
        .map(([box, n]) => `${box} ${n}`)
        .join(', ')}.`,
  },
  zh: {
    checking: '我先查一下液氮罐的库存。',
    ask: '这是剩余的库存。解冻前请先做两个选择：',
    linesHeader: '细胞系',
    linesQuestion: '要解冻哪些细胞系（每种一支）？',
    vials: (line: InventoryRow) =>
      `${line.kind === 'suspension' ? '悬浮' : '贴壁'} · ${line.boxes.join('、')} 盒 · 剩 ${line.vials} 支`,
    mediumHeader: '培养基',
    mediumQuestion: '解冻到哪种培养基？',
    recommended: '（推荐）',
    rpmi: '适合 K562 等悬浮细胞；已预热到 37 °C。',
    dmem: '适合 HeLa、HEK293T 等贴壁细胞。',
    confirm: '解冻无法撤销，需要你的批准。',
    done: '完成。已解冻',
    into: '，培养基：',
    missing: (names: string) => `${names}：不在这个液氮罐里，没有解冻。`,
    tip: '请在 10 分钟内离心，并在培养瓶上写好今天的日期。',
    rejected: '明白，没有解冻任何细胞。',
    noBox: '没有选择盒子，没有解冻任何细胞。',
    noChoice: '好的，我没有解冻任何东西。准备好了再告诉我。',
    welcome: '不客气！需要细胞时随时找我。',
    storing: '我请存储 Agent 来入库。',
    handingOver: '培养箱归实验室前台管：为你转接。',
    storageReport: (output: string) => `存储 Agent 回复：${output}`,
    counting: '我逐盒清点细胞，需要一点时间。',
    counted: (result: CountResult) =>
      `共清点 ${result.total} 支：${Object.entries(result.boxes)
        .map(([box, n]) => `${box} ${n} 支`)
        .join('、')}。`,
  },
} as const;

function languageOf(messages: ChatMessage[]): Lang {
  const lastUser = messages.filter((message) => message.role === 'user').at(-1);
  return lastUser && /[\u4e00-\u9fff]/.test(lastUser.content ?? '') ? 'zh' : 'en';
}

/** The name of the tool whose result `message` is. */
function toolNameOf(messages: ChatMessage[], toolCallId: string): string | undefined {
  for (const message of messages) {
    if (message.role !== 'assistant') continue;
    const call = message.tool_calls?.find((item) => item.id === toolCallId);
    if (call) return call.function.name;
  }
  return undefined;
}

/** The recommendation marker in either language: `" (Recommended)"` or `"（推荐）"`. */
const RECOMMENDED = /\s*(\(Recommended\)|（推荐）)$/;

/** `"K562, Other (custom: MCF-7) (note: …)"` → `['K562', 'MCF-7']`; recommendation markers dropped. */
export function labelsOf(answer: string): string[] {
  const text = answer.replace(/ \(note: [\s\S]*\)$/, '');
  const custom = /Other \(custom: ([\s\S]*?)\)(?=, |$)/.exec(text);
  const rest = custom ? text.replace(custom[0], '') : text;
  const labels = rest
    .split(', ')
    .map((label) => label.replace(RECOMMENDED, '').trim())
    .filter((label) => label !== '');
  return custom?.[1] ? [...labels, custom[1].trim()] : labels;
}

function askStep(lang: Lang, result: string): ScriptedStep {
  const t = TEXT[lang];
  const { lines } = JSON.parse(result) as { lines: InventoryRow[] };
  const available = lines.filter((line) => line.vials > 0).slice(0, 4);
  const questions = [
    {
      id: 'lines',
      header: t.linesHeader,
      question: t.linesQuestion,
      multiSelect: true,
      options: available.map((line) => ({ label: line.cellLine, description: t.vials(line) })),
    },
    {
      id: 'medium',
      header: t.mediumHeader,
      question: t.mediumQuestion,
      options: [
        { label: `RPMI-1640${t.recommended}`, description: t.rpmi },
        { label: 'DMEM', description: t.dmem },
      ],
    },
  ];
  return { text: t.ask, toolCalls: [{ name: 'AskUserQuestion', arguments: { questions } }] };
}

function thawStep(lang: Lang, result: string): ScriptedStep {
  const parsed = JSON.parse(result) as { ok?: false; answers?: Record<string, string> };
  const answers = Object.values(parsed.answers ?? {});
  const cellLines = labelsOf(answers[0] ?? '');
  const medium = labelsOf(answers[1] ?? '')[0] ?? 'RPMI-1640';
  if (parsed.ok === false || cellLines.length === 0) return TEXT[lang].noChoice;
  return {
    text: TEXT[lang].confirm,
    toolCalls: [{ name: 'thaw_vials', arguments: { cellLines, medium } }],
  };
}

/** A step of the script: a tool call or text (a final text is a plan that thaws nothing), or a whole plan. */
type Step = ScriptedStep | { plan: ThawPlanValue };

function reportStep(lang: Lang, result: string): Step {
  const t = TEXT[lang];
  const parsed = JSON.parse(result) as Partial<ThawResult> & {
    ok?: false;
    error_code?: string;
    rationale?: string | null;
  };
  // The box form (thaw_vials' ctx.ask) was dismissed, or timed out.
  if (parsed.error_code === 'question_cancelled' || parsed.error_code === 'question_timeout') return t.noBox;
  if (parsed.ok === false) return parsed.rationale ? `${t.rejected} (${parsed.rationale})` : t.rejected;
  const thawed = parsed.thawed ?? [];
  const lines = [
    `${t.done} ${thawed.map((vial) => `${vial.cellLine} (${vial.position})`).join(', ')} ${t.into} ${parsed.medium}.`,
  ];
  if (parsed.missing?.length) lines.push(t.missing(parsed.missing.join(', ')));
  return {
    plan: {
      summary: lines.join('\n'),
      thawed: thawed.map((vial) => ({
        cellLine: vial.cellLine,
        box: boxOf(vial.position),
        positions: [vial.position],
        // Runs saved before thaw_vials counted what is left have no count: not known.
        vialsLeft: vial.vialsLeft ?? null,
      })),
      medium: parsed.medium ?? null,
      followUps: [],
      nextSteps: [t.tip],
    },
  };
}

/**
 * The next move, from the end of the transcript. The agent's final answer is a thaw plan (`output:
 * ThawPlan`): a final text is written as the JSON of a plan that says it.
 */
export function plan(request: ModelRequest): ScriptedStep {
  const step = nextMove(request);
  if (typeof step === 'string') return JSON.stringify(sayOnly(step));
  if ('plan' in step) return JSON.stringify(step.plan);
  return step;
}

function nextMove(request: ModelRequest): Step {
  const messages = request.messages.filter((message) => message.role !== 'system');
  const lang = languageOf(messages);
  const last = messages.at(-1);
  if (last?.role === 'tool') {
    const tool = toolNameOf(messages, last.tool_call_id);
    if (tool === 'query_inventory') return askStep(lang, last.content);
    if (tool === 'AskUserQuestion') return thawStep(lang, last.content);
    if (tool === 'thaw_vials') return reportStep(lang, last.content);
    if (tool === STORAGE_AGENT) return TEXT[lang].storageReport(last.content);
    if (tool === 'count_vials') return TEXT[lang].counted(JSON.parse(last.content) as CountResult);
    // The lab desk handed the run back: the vials the person asked for are this agent's.
    if (tool === `transfer_to_${AGENT_NAME}`) {
      return { text: TEXT[lang].checking, toolCalls: [{ name: 'query_inventory', arguments: {} }] };
    }
  }
  if (last?.role === 'user' && isDeskRequest(last.content)) {
    const reason = 'A question about an incubator.';
    return {
      text: TEXT[lang].handingOver,
      toolCalls: [{ name: `transfer_to_${DESK_AGENT}`, arguments: { reason } }],
    };
  }
  if (last?.role === 'user' && isCountRequest(last.content)) {
    return { text: TEXT[lang].counting, toolCalls: [{ name: 'count_vials', arguments: {} }] };
  }
  if (last?.role === 'user' && isStoreRequest(last.content)) {
    return {
      text: TEXT[lang].storing,
      toolCalls: [{ name: STORAGE_AGENT, arguments: { input: last.content } }],
    };
  }
  if (last?.role === 'user' && /thank|谢/i.test(last.content)) return TEXT[lang].welcome;
  return { text: TEXT[lang].checking, toolCalls: [{ name: 'query_inventory', arguments: {} }] };
}

/**
 * The scripted model, with its text streamed one word every `paceMs` (so streaming is visible) after
 * `thinkMs` of "thinking". The script is stateless: the same step function serves every call.
 */
export function demoModel(options: { paceMs: number; thinkMs: number }): ModelAdapter {
  const inner = scriptedModel(
    Array.from({ length: 1000 }, () => plan),
    { name: 'ln2-script', delayMs: options.thinkMs },
  );
  if (options.paceMs <= 0) return inner;
  return {
    name: inner.name,
    async generate(request: ModelRequest) {
      const pieces: string[] = [];
      const response = await inner.generate({ ...request, onDelta: (text) => pieces.push(text) });
      for (const piece of pieces) {
        await delay(options.paceMs, undefined, { signal: request.signal }).catch(() => {});
        // An aborted turn keeps no streamed text: stop pacing it.
        if (request.signal?.aborted) break;
        request.onDelta?.(piece);
      }
      return response;
    },
  };
}
