/**
 * Every string the CLI shows a person, in English and Simplified Chinese, in one table. Strings meant
 * for programs (the JSON of `ask`, the usage line, core's validation messages) stay English.
 */

export type Lang = 'en' | 'zh-CN';
export const LANGS: readonly Lang[] = ['en', 'zh-CN'];

const en = {
  offline:
    'Offline demo: a scripted LN2 freezer assistant (--model provider:model runs a real one, e.g. openai:gpt-4.1-mini).',
  online: 'Model: {model} at {baseURL}',
  runStarted: 'Run {runId} · saved in {dir}',
  you: 'You',
  agent: 'Agent',
  thinking: 'Thinking…',
  runningTool: 'Running {tool}…',
  asking: 'Agent is asking you a question…',
  questionTitle: 'Agent Question',
  askedBy: 'Asked by {path}',
  requestedBy: 'Requested by {path}',
  chooseOne: 'Choose one.',
  chooseMany: 'Choose one or more.',
  other: 'Other (custom input)',
  note: 'Note (optional)',
  hintSingle: 'Enter a number (empty = 1), or 0 for custom input: ',
  hintMulti: 'Enter numbers, e.g. 1,3 (empty = 1), or 0 for custom input: ',
  customPrompt: 'Your answer: ',
  notAnOption: '"{input}" is not an option: enter a number from 1 to {max}, or 0 for custom input.',
  numberIsLabel:
    '"{input}" is read as a row number, and there is no row {input}. The option labelled "{input}" is row {row}: enter {row}.',
  singleOnly: 'This question takes one answer: enter a single number.',
  emptyCustom: 'The custom answer is empty: type it, or press Ctrl-D to stop.',
  typeAnswer: 'Type your answer.',
  answer: 'Answer',
  emptyText: 'The answer is empty: type it, or /skip this question.',
  lineCommands: 'Or type /skip to skip this question, /cancel to cancel the question.',
  skipRow: 'Skip this question',
  cancelRow: 'Cancel the question (the agent is told, and goes on)',
  skipped: 'skipped',
  ttyHintSingle: '↑↓ move · space select · enter confirm · type on the text rows · esc: answer later',
  ttyHintApproval: '↑↓ move · space select · type on the text rows · enter: {decision} · esc: answer later',
  ttyHintMulti: '↑↓ move · space toggle · enter confirm · type on the text rows · esc: answer later',
  ttyHintText: '↑↓ move · type your answer · enter confirm · esc: answer later',
  needChoice: 'Select at least one option with space, or type an answer on the Other row.',
  needOther: 'Type your answer on the Other row first.',
  needText: 'Type an answer, or choose Skip.',
  approvalTitle: 'Approval needed',
  tool: 'Tool',
  reason: 'Reason',
  input: 'Input',
  approve: 'Approve',
  reject: 'Reject',
  edit: 'Edit input (JSON)',
  rationale: 'Rationale (optional)',
  approvalPrompt: 'Approve? a = approve, r = reject, e = edit input: ',
  approvalInvalid: 'Type a (approve), r (reject) or e (edit input).',
  editPrompt: 'New input (JSON): ',
  invalidJson: 'That is not valid JSON ({error}). Try again.',
  rationalePrompt: 'Rationale (optional, enter to skip): ',
  messagePrompt: 'You › ',
  messageHint: 'Type a follow-up message, or press enter on an empty line to quit.',
  answerRejected: 'The answer was not accepted:',
  paused: 'Paused and saved: waiting for you (you can quit at any time).',
  questionLeft: 'Question left unanswered. Nothing is lost: run {runId} is saved and still waiting for you.',
  approvalCancelled: 'Approval postponed. Nothing is lost: run {runId} is saved and still waiting for you.',
  formLeft: 'Form left unfilled. Nothing is lost: run {runId} is saved and still waiting for you.',
  interrupted: 'Interrupted. Nothing is lost: run {runId} is saved.',
  resumeHint: 'Resume with: {command} resume {runId}',
  finished: 'Run {runId} is saved. Continue it later with: {command} resume {runId}',
  failed: 'The turn failed ({code}): {message}',
  maxSteps: 'The agent used its {maxSteps} steps for this turn.',
  retryHint: 'Retry with: {command} resume {runId}',
  aborted: 'Stopped. Run {runId} is saved; resuming retries the interrupted turn.',
  busy: 'Run {runId} is being worked on by another process. Try again in a minute.',
  notFound: 'There is no run {runId} in {dir}. List runs with: {command} runs',
  noRuns: 'No runs in {dir} yet. Start one with: turnkit-demo',
  stopUsage: 'Usage: turnkit-demo stop <runId> [reason]',
  stopRequested:
    'Stop requested: the process playing run {runId} ends its turn before its next model or tool call (a tool already running finishes).',
  stopStopped:
    'Stopped run {runId}: what it waited for was cancelled; it rests {status}. Continue it with: turnkit-demo resume {runId}',
  stopNotRunning: 'Run {runId} is not running ({status}): nothing to stop.',
  resumed: 'Resuming run {runId} ({status}).',
  lastAnswer: 'Last answer',
  colRun: 'RUN',
  colStatus: 'STATUS',
  colUpdated: 'UPDATED',
  colWaiting: 'WAITING FOR',
  unreadable: 'unreadable: {message}',
  approvalOf: 'approval of {tool}',
  unanswered: 'no answer yet',
  answered: 'answered',
  approved: 'approved',
  approvedEdited: 'approved with edited input',
  rejected: 'rejected',
  cancelled: 'cancelled',
  expired: 'expired',
  superseded: 'superseded',
  unknownCommand: 'Unknown option or command: {detail}',
  badLang: 'Unknown language "{lang}": use en or zh-CN.',
  seeHelp: 'Run turnkit-demo --help to see every option.',
  error: 'Error: {message}',
  questionTimeout: 'Question timed out, the agent will continue',
  timeLeft: 'Time left to answer: {time}',
  timedOut: 'timed out',
  formTitle: 'Input needed',
  formField: 'Field {index}/{total}',
  optional: '(optional)',
  yes: 'Yes',
  no: 'No',
  value: 'Value',
  hintEnum: 'Enter a number from 1 to {max} (empty = 1): ',
  hintBoolean: '{field}? y = yes, n = no: ',
  hintField: '{field}: ',
  hintOptional: '(empty = leave out) ',
  notAChoice: '"{input}" is not a choice: enter a number from 1 to {max}.',
  needValue: 'This field is required: type a value, or /cancel the form.',
  notYesNo: '"{input}" is not y or n.',
  notANumber: '"{input}" is not a number.',
  notAnInteger: '"{input}" is not a whole number.',
  formCommands: 'Or type /cancel to cancel the form.',
  cancelFormRow: 'Cancel the form (the agent is told, and goes on)',
  ttyHintForm: '↑↓ move · enter confirm · type on the text row · esc: answer later',
  formOf: 'form of {tool}',
  expiredTag: '{what} (expired)',
  contextHint: 'Context: {hint}',
  contextRefs: 'Refs: {refs}',
  answeredBefore: '{header}: {answer}',
  badTimeout: '--timeout-seconds takes a number of seconds (0: no limit), not "{value}".',
};

export type MessageKey = keyof typeof en;

const zhCN: Record<MessageKey, string> = {
  offline:
    '离线演示：脚本驱动的液氮冻存管理助手（使用 --model provider:model 可运行真实模型，例如 openai:gpt-4.1-mini）。',
  online: '模型：{model}，地址 {baseURL}',
  runStarted: '运行 {runId} · 保存在 {dir}',
  you: '你',
  agent: 'Agent',
  thinking: '思考中…',
  runningTool: '正在运行 {tool}…',
  asking: 'Agent 正在向您提问...',
  questionTitle: 'Agent 提问',
  askedBy: '提问者：{path}',
  requestedBy: '请求者：{path}',
  chooseOne: '请选择一项。',
  chooseMany: '可选择多项。',
  other: '其他（自定义输入）',
  note: '备注（可选）',
  hintSingle: '输入编号（回车 = 1），或输入 0 自定义：',
  hintMulti: '输入一个或多个编号，如 1,3（回车 = 1），或输入 0 自定义：',
  customPrompt: '请输入您的回答：',
  notAnOption: '“{input}”不是有效选项：请输入 1 到 {max} 之间的编号，或输入 0 自定义。',
  numberIsLabel:
    '“{input}”被当作行号读取，但没有第 {input} 行。标签为“{input}”的选项是第 {row} 行：请输入 {row}。',
  singleOnly: '此问题只能选择一项：请输入一个编号。',
  emptyCustom: '自定义回答为空：请输入内容，或按 Ctrl-D 退出。',
  typeAnswer: '请输入您的回答。',
  answer: '回答',
  emptyText: '回答为空：请输入内容，或输入 /skip 跳过此问题。',
  lineCommands: '也可输入 /skip 跳过此问题，或输入 /cancel 取消提问。',
  skipRow: '跳过此问题',
  cancelRow: '取消提问（会告知 Agent，Agent 将继续执行）',
  skipped: '已跳过',
  ttyHintSingle: '↑↓ 移动 · 空格 选择 · 回车 确定 · 在文本行中直接输入 · esc 稍后回答',
  ttyHintApproval: '↑↓ 移动 · 空格 选择 · 在文本行中直接输入 · 回车：{decision} · esc 稍后回答',
  ttyHintMulti: '↑↓ 移动 · 空格 选择 · 回车 确定 · 在文本行中直接输入 · esc 稍后回答',
  ttyHintText: '↑↓ 移动 · 直接输入回答 · 回车 确定 · esc 稍后回答',
  needChoice: '请用空格选择至少一项，或在“其他”行输入回答。',
  needOther: '请先在“其他”行输入您的回答。',
  needText: '请输入回答，或选择“跳过”。',
  approvalTitle: '需要批准',
  tool: '工具',
  reason: '原因',
  input: '输入',
  approve: '批准',
  reject: '拒绝',
  edit: '编辑输入（JSON）',
  rationale: '理由（可选）',
  approvalPrompt: '是否批准？a = 批准，r = 拒绝，e = 编辑输入：',
  approvalInvalid: '请输入 a（批准）、r（拒绝）或 e（编辑输入）。',
  editPrompt: '新的输入（JSON）：',
  invalidJson: '这不是有效的 JSON（{error}），请重试。',
  rationalePrompt: '理由（可选，回车跳过）：',
  messagePrompt: '你 › ',
  messageHint: '输入后续消息，或在空行按回车退出。',
  answerRejected: '回答未被接受：',
  paused: '已暂停并保存：等待您的回复（可随时退出）。',
  questionLeft: '问题暂未回答。没有任何丢失：运行 {runId} 已保存，仍在等待您的回答。',
  approvalCancelled: '批准已推迟。没有任何丢失：运行 {runId} 已保存，仍在等待您的决定。',
  formLeft: '表单暂未填写。没有任何丢失：运行 {runId} 已保存，仍在等待您填写。',
  interrupted: '已中断。没有任何丢失：运行 {runId} 已保存。',
  resumeHint: '继续运行：{command} resume {runId}',
  finished: '运行 {runId} 已保存。之后可继续：{command} resume {runId}',
  failed: '本轮失败（{code}）：{message}',
  maxSteps: 'Agent 已用完本轮的 {maxSteps} 步。',
  retryHint: '重试：{command} resume {runId}',
  aborted: '已停止。运行 {runId} 已保存；继续运行会重试被中断的一轮。',
  busy: '运行 {runId} 正由另一个进程处理，请一分钟后再试。',
  notFound: '{dir} 中没有运行 {runId}。列出运行：{command} runs',
  noRuns: '{dir} 中还没有运行。开始一个：turnkit-demo',
  stopUsage: '用法：turnkit-demo stop <runId> [原因]',
  stopRequested:
    '已请求停止：正在处理运行 {runId} 的进程会在下一次模型或工具调用之前结束本轮（正在运行的工具会先完成）。',
  stopStopped: '已停止运行 {runId}：等待中的内容已取消；状态为 {status}。继续：turnkit-demo resume {runId}',
  stopNotRunning: '运行 {runId} 未在运行（{status}）：无需停止。',
  resumed: '继续运行 {runId}（{status}）。',
  lastAnswer: '上一次回答',
  colRun: '运行',
  colStatus: '状态',
  colUpdated: '更新时间',
  colWaiting: '等待',
  unreadable: '无法读取：{message}',
  approvalOf: '批准 {tool}',
  unanswered: '尚未回答',
  answered: '已回答',
  approved: '已批准',
  approvedEdited: '已批准（输入已编辑）',
  rejected: '已拒绝',
  cancelled: '已取消',
  expired: '已过期',
  superseded: '已被新消息取代',
  unknownCommand: '未知的选项或命令：{detail}',
  badLang: '未知语言“{lang}”：请使用 en 或 zh-CN。',
  seeHelp: '运行 turnkit-demo --help 查看所有选项。',
  error: '错误：{message}',
  questionTimeout: '提问超时，Agent 将继续执行',
  timeLeft: '剩余回答时间：{time}',
  timedOut: '已超时',
  formTitle: '需要填写',
  formField: '第 {index}/{total} 项',
  optional: '（可选）',
  yes: '是',
  no: '否',
  value: '值',
  hintEnum: '输入 1 到 {max} 之间的编号（回车 = 1）：',
  hintBoolean: '{field}？y = 是，n = 否：',
  hintField: '{field}：',
  hintOptional: '（回车 = 不填）',
  notAChoice: '“{input}”不是有效选项：请输入 1 到 {max} 之间的编号。',
  needValue: '此项必填：请输入内容，或输入 /cancel 取消填写。',
  notYesNo: '“{input}”不是 y 或 n。',
  notANumber: '“{input}”不是数字。',
  notAnInteger: '“{input}”不是整数。',
  formCommands: '也可输入 /cancel 取消填写。',
  cancelFormRow: '取消填写（会告知 Agent，Agent 将继续执行）',
  ttyHintForm: '↑↓ 移动 · 回车 确定 · 在文本行中直接输入 · esc 稍后回答',
  formOf: '{tool} 的表单',
  expiredTag: '{what}（已过期）',
  contextHint: '背景：{hint}',
  contextRefs: '参考：{refs}',
  answeredBefore: '{header}：{answer}',
  badTimeout: '--timeout-seconds 需要秒数（0 表示不限时），而不是“{value}”。',
};

const TABLE: Record<Lang, Record<MessageKey, string>> = { en, 'zh-CN': zhCN };

/** Looks up a UI string and fills its `{placeholders}`. */
export type Translate = (key: MessageKey, params?: Record<string, string | number>) => string;

/**
 * How the user runs this CLI, for the hints it prints: `npm run demo --` when started by the root
 * `npm run demo` script (where `turnkit-demo` is not on the PATH), else `turnkit-demo`.
 */
export function commandName(env: NodeJS.ProcessEnv): string {
  return env.npm_lifecycle_event === 'demo' ? 'npm run demo --' : 'turnkit-demo';
}

export function translator(lang: Lang, env: NodeJS.ProcessEnv = process.env): Translate {
  const defaults = { command: commandName(env) };
  return (key, params = {}) =>
    TABLE[lang][key].replace(/\{(\w+)\}/g, (match, name: string) => {
      const value = name in params ? params[name] : (defaults as Record<string, string>)[name];
      return value === undefined ? match : String(value);
    });
}

/** `zh-CN` for any Chinese locale in LC_ALL, LC_MESSAGES or LANG (first one set wins), else English. */
export function langFromEnv(env: NodeJS.ProcessEnv): Lang {
  const locale = env.LC_ALL || env.LC_MESSAGES || env.LANG || '';
  return /^zh/i.test(locale) ? 'zh-CN' : 'en';
}

/** Accepts `en`, `zh-CN` and common spellings (`zh`, `zh_CN`, `EN`); undefined for anything else. */
export function parseLang(value: string): Lang | undefined {
  const lower = value.toLowerCase().replace('_', '-');
  if (lower === 'en' || lower.startsWith('en-')) return 'en';
  if (lower === 'zh' || lower === 'zh-cn' || lower === 'zh-hans') return 'zh-CN';
  return undefined;
}
