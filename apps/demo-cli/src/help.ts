/** `turnkit-demo --help`, in both languages; the usage line of `ask` stays English for the programs that call it. */
import type { Lang } from './i18n.js';

export const ASK_USAGE = `Usage: turnkit-demo ask '{"questions":[{"question":"…?","header":"…","options":[{"label":"…","description":"…"},…],"multiSelect":false}]}'`;

const en = `turnkit-demo: TurnKit's interactive demo. An LN2 freezer assistant that pauses to ask you
questions and approvals; every pause is saved, so any process can resume the run later.

Usage:
  turnkit-demo [message]          Chat with the assistant (default message: thaw one K562 vial)
  turnkit-demo resume <runId>     Continue a saved run in this process
  turnkit-demo runs               List saved runs: status and what they wait for
  turnkit-demo ask '<json>'       Ask AskUserQuestion questions from a shell; prints {"answers":{…}}

Options:
  --lang en|zh-CN    Language of the interface (default: from LC_ALL / LC_MESSAGES / LANG)
  --json             Also print every event as one JSON line on stdout (the interface moves to stderr)
  --dir <path>       Folder of the run files (default: .turnkit/runs, or TURNKIT_DIR)
  --model <name>     Model for OPENAI_API_KEY mode (default: OPENAI_MODEL, else gpt-4.1-mini)
  --offline          Use the scripted model even when OPENAI_API_KEY is set
  -h, --help         Show this help
  -v, --version      Show the version

Answering on a terminal:  ↑/↓ move · space toggles (multi-select) · 1-4 jump · 0 = Other ·
  type on the Other / note rows · enter confirms · Esc or Ctrl-D quits (the run stays saved).
Answering from a pipe:    1 · 1,3 (multi-select) · 0 or "other", then the text on the next line ·
  an empty line takes option 1 (the recommended one) · end of input quits (the run stays saved).
Approvals:  approve, reject, or edit the tool's input (JSON), with an optional rationale.

ask: questions are validated like the AskUserQuestion tool (1-4 questions, 2-4 options, headers
  of at most 12 characters; ASK_MAX_QUESTIONS, ASK_MAX_OPTIONS, ASK_HEADER_MAX_LENGTH and
  ASK_QUESTION_MAX_LENGTH change the limits). The interface is drawn on stderr.
  Exit codes: 0 answered (JSON on stdout) · 1 bad or missing JSON (errors on stderr) ·
  2 cancelled or end of input ({"ok":false,"error_code":"question_cancelled",…} on stdout).

Environment:
  OPENAI_API_KEY, OPENAI_BASE_URL, OPENAI_MODEL   use an OpenAI-compatible model instead of the script
  TURNKIT_DIR                                     folder of the run files
`;

const zhCN = `turnkit-demo：TurnKit 交互演示。一个液氮冻存管理助手，会暂停下来向您提问或请求批准；
每次暂停都会保存，之后任何进程都可以继续运行。

用法：
  turnkit-demo [消息]             与助手对话（默认消息：解冻一支 K562）
  turnkit-demo resume <runId>     在当前进程中继续一个已保存的运行
  turnkit-demo runs               列出已保存的运行：状态以及正在等待什么
  turnkit-demo ask '<json>'       在 shell 中提出 AskUserQuestion 问题；输出 {"answers":{…}}

选项：
  --lang en|zh-CN    界面语言（默认取自 LC_ALL / LC_MESSAGES / LANG）
  --json             同时在 stdout 上以 JSON 行输出每个事件（界面改为输出到 stderr）
  --dir <路径>       运行文件所在目录（默认 .turnkit/runs，或 TURNKIT_DIR）
  --model <名称>     OPENAI_API_KEY 模式下使用的模型（默认 OPENAI_MODEL，否则 gpt-4.1-mini）
  --offline          即使设置了 OPENAI_API_KEY 也使用脚本模型
  -h, --help         显示帮助
  -v, --version      显示版本

在终端中回答：↑/↓ 移动 · 空格 选择（多选）· 1-4 跳转 · 0 = 其他 ·
  在“其他”/备注行中直接输入 · 回车 确定 · Esc 或 Ctrl-D 退出（运行仍会保存）。
通过管道回答：1 · 1,3（多选）· 0 或 "other"，然后在下一行输入文本 ·
  空行选择第 1 项（推荐项）· 输入结束即退出（运行仍会保存）。
批准：批准、拒绝，或编辑工具的输入（JSON），可附理由。

ask：问题按 AskUserQuestion 工具的规则校验（1-4 个问题、2-4 个选项、标题最多 12 个字符；
  可用 ASK_MAX_QUESTIONS、ASK_MAX_OPTIONS、ASK_HEADER_MAX_LENGTH、ASK_QUESTION_MAX_LENGTH 调整）。
  界面输出到 stderr。退出码：0 已回答（JSON 在 stdout）· 1 JSON 错误或缺失（错误在 stderr）·
  2 已取消或输入结束（stdout 输出 {"ok":false,"error_code":"question_cancelled",…}）。

环境变量：
  OPENAI_API_KEY、OPENAI_BASE_URL、OPENAI_MODEL   使用兼容 OpenAI 的模型代替脚本
  TURNKIT_DIR                                     运行文件所在目录
`;

export function helpText(lang: Lang): string {
  return lang === 'zh-CN' ? zhCN : en;
}
