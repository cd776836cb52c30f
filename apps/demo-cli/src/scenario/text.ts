/**
 * What the scripted LN2 assistant says, in English and Chinese: its messages, its questions, and
 * what `record_thaw` shows (its approval reason, its box form). The CLI's own strings are in
 * `../i18n.ts`.
 */
import type { Lang } from '../i18n.js';
import type { BoxVials, InventoryMatch } from './freezer.js';

export interface ThawSummary {
  cellLine: string;
  box: number;
  positions: string[];
  left: number;
  followUps: string[];
  edited: boolean;
}

export interface ScenarioText {
  opening: string;
  checking: string;
  checkingOther(name: string): string;
  noMatch(query: string, known: string[]): string;
  recommended: string;
  cellLineHeader: string;
  whichLine(query: string, names: string[]): string;
  describe(match: InventoryMatch): string;
  followUpsHeader: string;
  followUpsQuestion: string;
  followUps: { label: string; description: string }[];
  thawReason(cellLine: string, vials: number, box: number, positions: string[], left: number): string;
  /** The approval reason when several boxes hold the line (the box is chosen next). */
  thawReasonBoxes(cellLine: string, vials: number, boxes: number[], left: number): string;
  /** The message of `record_thaw`'s box form. */
  whichBox(cellLine: string, vials: number, boxes: BoxVials[]): string;
  /** The title of the form's field, and each box as the form offers it. */
  boxField: string;
  boxLabel(box: BoxVials): string;
  /** The model's reply when the form was cancelled or timed out. */
  noBox: string;
  done(summary: ThawSummary): string;
  /** What to do with a thawed vial: the plan's next step. */
  nextStep: string;
  rejected(rationale: string | undefined): string;
  notRecorded: string;
  noAnswer: string;
  failed(message: string): string;
  storing: string;
  storageReport(output: string): string;
  /** Handing an incubator question over to the lab desk (a handoff). */
  handingOver: string;
}

const en: ScenarioText = {
  opening: 'Thaw one K562 vial for tomorrow’s experiment.',
  checking: 'Let me check the freezer.',
  checkingOther: (name) => `Checking the freezer for ${name}.`,
  noMatch: (query, known) =>
    `There are no vials matching “${query}” in the freezer. It holds: ${known.join(', ')}.`,
  recommended: ' (Recommended)',
  cellLineHeader: 'Cell line',
  whichLine: (query, names) =>
    `The freezer holds ${names.length} lines matching “${query}”: ${names.join(', ')}. Which one should I thaw?`,
  describe: (m) =>
    `${m.kind} · ${m.vials} vial${m.vials === 1 ? '' : 's'} · box${m.boxes.length > 1 ? 'es' : ''} ${m.boxes.map((b) => b.box).join(', ')}`,
  followUpsHeader: 'Follow-ups',
  followUpsQuestion: 'Which follow-up tasks should I add to the thaw record?',
  followUps: [
    { label: 'Mycoplasma test', description: 'Test the culture 72 h after thawing' },
    { label: 'Viability count', description: 'Trypan blue count right after thawing' },
    { label: 'Notify lab manager', description: 'Stock is low; reorder or expand' },
  ],
  thawReason: (cellLine, vials, box, positions, left) =>
    `Takes ${vials} vial${vials === 1 ? '' : 's'} of ${cellLine} out of box ${box} (${positions.join(', ')}); ${left} will remain.`,
  thawReasonBoxes: (cellLine, vials, boxes, left) =>
    `Takes ${vials} vial${vials === 1 ? '' : 's'} of ${cellLine} out of the freezer; boxes ${boxes.join(' and ')} hold it, and you choose which next. ${left} will remain.`,
  whichBox: (cellLine, vials, boxes) =>
    `${boxes.length} boxes hold ${cellLine}. Which box should the ${vials === 1 ? 'vial' : `${vials} vials`} come from?`,
  boxField: 'Box',
  boxLabel: ({ box, positions }) => `Box ${box} · ${positions.join(', ')}`,
  noBox: 'No box was chosen, so I did not record the thaw.',
  nextStep: 'Warm the vial at 37 °C and spin it down within 10 minutes.',
  done: (s) =>
    `Done: thawed ${s.positions.length} vial${s.positions.length === 1 ? '' : 's'} of ${s.cellLine} from box ${s.box} ` +
    `(${s.positions.join(', ')}), ${s.left} left.` +
    (s.followUps.length > 0 ? ` Follow-ups: ${s.followUps.join(', ')}.` : '') +
    (s.edited ? ' (You edited the request before approving it.)' : ''),
  rejected: (rationale) =>
    `Understood, I did not record the thaw.${rationale ? ` Your reason: ${rationale}` : ''}`,
  notRecorded: 'The thaw was not approved, so nothing was recorded.',
  noAnswer: 'Without an answer I will not thaw anything. Tell me which line you need when you are ready.',
  failed: (message) => `I could not record the thaw: ${message}`,
  storing: 'I will ask the storage agent to put them away.',
  storageReport: (output) => `The storage agent reports: ${output}`,
  handingOver: 'The incubators are the lab desk’s: handing you over.',
};

const zhCN: ScenarioText = {
  opening: '帮我解冻一支 K562，明天做实验用。',
  checking: '我先查一下液氮罐。',
  checkingOther: (name) => `正在查找 ${name}。`,
  noMatch: (query, known) => `液氮罐中没有与“${query}”匹配的冻存管。现有：${known.join('、')}。`,
  recommended: '（推荐）',
  cellLineHeader: '细胞系',
  whichLine: (_query, names) => `库存中有 ${names.join('、')} ${names.length} 种，你需要哪个？`,
  describe: (m) => `${m.kind} · ${m.vials} 支 · ${m.boxes.map((b) => b.box).join('、')} 号盒`,
  followUpsHeader: '后续任务',
  followUpsQuestion: '需要在解冻记录中添加哪些后续任务？',
  followUps: [
    { label: '支原体检测', description: '解冻 72 小时后检测' },
    { label: '活率计数', description: '解冻后立即台盼蓝计数' },
    { label: '通知实验室管理员', description: '库存偏低，需补充或扩增' },
  ],
  thawReason: (cellLine, vials, box, positions, left) =>
    `从 ${box} 号盒取出 ${vials} 支 ${cellLine}（${positions.join('、')}），剩余 ${left} 支。`,
  thawReasonBoxes: (cellLine, vials, boxes, left) =>
    `取出 ${vials} 支 ${cellLine}；${boxes.join('、')} 号盒都有，接下来由您选择从哪个盒取。剩余 ${left} 支。`,
  whichBox: (cellLine, vials, boxes) => `${boxes.length} 个盒子里有 ${cellLine}。这 ${vials} 支从哪个盒取？`,
  boxField: '盒子',
  boxLabel: ({ box, positions }) => `${box} 号盒 · ${positions.join('、')}`,
  noBox: '没有选择盒子，未记录解冻。',
  nextStep: '在 37 °C 下复温，并在 10 分钟内离心。',
  done: (s) =>
    `已完成：从 ${s.box} 号盒解冻 ${s.positions.length} 支 ${s.cellLine}（${s.positions.join('、')}），剩余 ${s.left} 支。` +
    (s.followUps.length > 0 ? `后续任务：${s.followUps.join('、')}。` : '') +
    (s.edited ? '（您在批准前编辑了请求。）' : ''),
  rejected: (rationale) => `好的，未记录此次解冻。${rationale ? `您的理由：${rationale}` : ''}`,
  notRecorded: '解冻未获批准，未做任何记录。',
  noAnswer: '没有得到回答，我不会解冻任何样品。准备好后告诉我需要哪个细胞系。',
  failed: (message) => `无法记录解冻：${message}`,
  storing: '我请存储 Agent 来入库。',
  storageReport: (output) => `存储 Agent 回复：${output}`,
  handingOver: '培养箱归实验室前台管：为你转接。',
};

export function scenarioText(lang: Lang): ScenarioText {
  return lang === 'zh-CN' ? zhCN : en;
}
