// UI strings of the demo, in English and Simplified Chinese. The language comes from ?lang=, else
// from the browser's preferred languages.

const en = {
  title: 'LN2 freezer assistant',
  subtitle: 'TurnKit web demo · offline scripted model',
  run: 'Run',
  newRun: 'New run',
  switchLang: '中文',
  switchLangLabel: 'Switch the interface to Chinese',
  conversation: 'Conversation',
  waiting: 'Waiting for you',
  messageLabel: 'Message',
  placeholder: 'Ask the assistant, e.g. “Thaw vials for tomorrow’s experiment”',
  placeholderPending: 'Or type a new message (it replaces the open question)',
  send: 'Send',
  thinking: 'Thinking…',
  working: 'Another window is working on this run…',
  you: 'You',
  assistant: 'Assistant',
  tool: (name) => `Tool · ${name}`,
  toolRunning: (name) => `Running ${name}…`,
  answered: 'Your answers',
  questionCard: 'Question',
  chooseMany: 'Choose any that apply',
  chooseOne: 'Choose one',
  other: 'Other',
  otherPlaceholder: 'Type your own answer',
  otherLabel: (header) => `Your own answer for ${header}`,
  note: 'Note (optional)',
  typeAnswer: 'Type your answer',
  answerLabel: (header) => `Your answer for ${header}`,
  emptyAnswer: (header) => `Type an answer for ${header} first (or dismiss the question).`,
  askedBy: (path) => `Asked by ${path}`,
  requestedBy: (path) => `Requested by ${path}`,
  submit: 'Submit answers',
  dismiss: 'Dismiss',
  approvalCard: 'Approval needed',
  input: 'Input (JSON, editable)',
  rationale: 'Rationale (optional)',
  approve: 'Approve',
  approveEdited: 'Approve edited input',
  reject: 'Reject',
  invalidJson: 'The input is not valid JSON.',
  rejectedNote: (why) => (why ? `Rejected: ${why}` : 'Rejected'),
  dismissed: 'Question dismissed',
  expired: 'This question had expired; the assistant went on without your answer.',
  taken: 'Someone else already answered this; here is the current state.',
  notFound: 'This run does not exist (any more). Start a new one.',
  failed: (why) => `The turn failed: ${why}`,
  error: 'Something went wrong:',
  empty: 'Ask me to thaw vials: I will check the freezer, ask you what to thaw, and ask your approval.',
  inputCard: 'Form',
  submitForm: 'Send',
  value: 'Value',
  optional: '(optional)',
  fieldJson: (title) => `${title} (JSON)`,
  fieldRequired: (title) => `Fill in ${title} first (or dismiss the form).`,
  fieldNumber: (title) => `${title} must be a number.`,
  fieldJsonInvalid: (title) => `${title} is not valid JSON.`,
  timeLeft: (time) => `Time left to answer: ${time}`,
  timedOut: 'Question timed out, the agent will continue',
  timedOutNote: 'Question timed out: the agent went on without an answer',
};

const zh = {
  title: '液氮罐库存助手',
  subtitle: 'TurnKit 网页演示 · 离线脚本模型',
  run: '运行',
  newRun: '新建运行',
  switchLang: 'English',
  switchLangLabel: '将界面切换为英文',
  conversation: '对话',
  waiting: '等待你的操作',
  messageLabel: '消息',
  placeholder: '向助手提问，例如“为明天的实验解冻细胞”',
  placeholderPending: '也可以输入新消息（会取代当前问题）',
  send: '发送',
  thinking: '思考中…',
  working: '另一个窗口正在处理这个运行…',
  you: '你',
  assistant: '助手',
  tool: (name) => `工具 · ${name}`,
  toolRunning: (name) => `正在运行 ${name}…`,
  answered: '你的回答',
  questionCard: '问题',
  chooseMany: '可多选',
  chooseOne: '请选择一项',
  other: '其他',
  otherPlaceholder: '输入你自己的答案',
  otherLabel: (header) => `${header}：你自己的答案`,
  note: '备注（可选）',
  typeAnswer: '请输入你的回答',
  answerLabel: (header) => `${header}：你的回答`,
  emptyAnswer: (header) => `请先填写“${header}”的回答（或忽略这个问题）。`,
  askedBy: (path) => `提问者：${path}`,
  requestedBy: (path) => `请求者：${path}`,
  submit: '提交回答',
  dismiss: '忽略',
  approvalCard: '需要批准',
  input: '输入（JSON，可编辑）',
  rationale: '理由（可选）',
  approve: '批准',
  approveEdited: '批准修改后的输入',
  reject: '拒绝',
  invalidJson: '输入不是有效的 JSON。',
  rejectedNote: (why) => (why ? `已拒绝：${why}` : '已拒绝'),
  dismissed: '问题已忽略',
  expired: '这个问题已过期，助手在没有你的回答的情况下继续了。',
  taken: '已有其他人回答了；以下是当前状态。',
  notFound: '这个运行不存在（或已删除）。请新建一个。',
  failed: (why) => `本轮失败：${why}`,
  error: '出错了：',
  empty: '让我帮你解冻细胞：我会查库存、问你要解冻哪些，并请你批准。',
  inputCard: '表单',
  submitForm: '提交',
  value: '值',
  optional: '（可选）',
  fieldJson: (title) => `${title}（JSON）`,
  fieldRequired: (title) => `请先填写“${title}”（或忽略这个表单）。`,
  fieldNumber: (title) => `“${title}”必须是数字。`,
  fieldJsonInvalid: (title) => `“${title}”不是有效的 JSON。`,
  timeLeft: (time) => `剩余回答时间：${time}`,
  timedOut: '提问超时，Agent 将继续执行',
  timedOutNote: '提问超时：Agent 在没有回答的情况下继续执行',
};

export const STRINGS = { en, 'zh-CN': zh };

/** 'zh-CN' or 'en', from ?lang= first, then the browser's languages. */
export function pickLang(requested, preferred) {
  for (const tag of [requested, ...(preferred ?? [])]) {
    if (!tag) continue;
    if (/^zh\b/i.test(tag)) return 'zh-CN';
    if (/^en\b/i.test(tag)) return 'en';
  }
  return 'en';
}

/** The translator of one language: t('key', ...args). */
export function translator(lang) {
  const table = STRINGS[lang] ?? en;
  return (key, ...args) => {
    const value = table[key] ?? en[key] ?? key;
    return typeof value === 'function' ? value(...args) : value;
  };
}
