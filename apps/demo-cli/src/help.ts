/** `turnkit-demo --help`, in both languages; the usage line of `ask` stays English for the programs that call it. */
import type { Lang } from './i18n.js';

export const ASK_USAGE = `Usage: turnkit-demo ask '{"questions":[{"question":"…?","header":"…","options":[{"label":"…","description":"…"},…],"multiSelect":false}]}'`;

const en = `turnkit-demo: TurnKit's interactive demo. An LN2 freezer assistant that pauses to ask you
questions and approvals; every pause is saved, so any process can resume the run later.

Usage:
  turnkit-demo [message]          Chat with the assistant (default message: thaw one K562 vial)
  turnkit-demo resume <runId>     Continue a saved run in this process
  turnkit-demo runs               List saved runs: status and what they wait for
  turnkit-demo inbox              List what every saved run waits for, oldest first; answer one
  turnkit-demo stop <runId> [reason]  Stop a run from any terminal: a turn playing elsewhere ends
                                  before its next call; a waiting run's questions are cancelled
  turnkit-demo tell <runId> <message>  Queue a message for a run from any terminal: a turn playing
                                  elsewhere adds it before its next model call; a waiting run
                                  keeps it until answered
  turnkit-demo record [runId] [file]  Save the recording of a run (default: the newest) as JSON
  turnkit-demo replay <file>      Replay a recording through today's agent (no model, no tool, no
                                  person) and print where it acts otherwise; exit 1 if it does
  turnkit-demo ask '<json>'       Ask AskUserQuestion questions from a shell; prints {"answers":{…}}

Options:
  --lang en|zh-CN    Language of the interface (default: from LC_ALL / LC_MESSAGES / LANG)
  --json             Also print every event as one JSON line on stdout (the interface moves to stderr)
  --dir <path>       Folder of the run files (default: .turnkit/runs, or TURNKIT_DIR)
  --model provider:model  Run on a real model instead of the offline script (default:
                     TURNKIT_MODEL, else offline; a key alone never goes online). Providers:
                     openai (Responses API), openai-chat (Chat Completions, for OpenAI-compatible
                     servers), anthropic (Messages API); e.g. openai:gpt-4.1-mini,
                     anthropic:claude-sonnet-4-5
  --offline          Use the scripted model even when TURNKIT_MODEL is set
  --timeout-seconds <n>  How long the agent's questions wait for an answer (default 300; 0: no
                     limit). The card counts down; when time is up the agent is told and goes on
  -h, --help         Show this help
  -v, --version      Show the version

Answering on a terminal:  ↑/↓ move · space toggles (multi-select) · a digit jumps to its row
  (two quick digits, e.g. 1 2, for row 12) · 1,3 chooses rows 1 and 3 (multi-select) · 0 = Other
  · type on the Other / note rows, or on the Answer row of a question without options · enter
  confirms · the last two rows of a card skip the question or cancel it (the agent is told, and
  goes on) · Esc or Ctrl-D quits (nothing is sent: the run stays saved, waiting).
Answering from a pipe:    1 · 1,3 (multi-select) · 10 · 0 or "other", then the text on the next
  line · a question without options takes the line itself · /skip skips the question · /cancel
  cancels it (the agent is told, and goes on) · numbers always pick rows (a line of other text
  may be an exact label) · an empty line takes option 1 (the recommended one) · end of input
  quits (nothing is sent: the run stays saved, waiting).
Approvals:  approve, reject, or edit the tool's input (JSON), with an optional rationale.
Forms:      a tool may ask mid-way (record_thaw asks which box when several hold the line): one
  card per field · a choice by number (or arrows) · y/n · text, a number or JSON · /cancel or the
  Cancel row cancels the form (the agent is told, and goes on).

ask: questions are validated like the AskUserQuestion tool (1-4 questions, 2-4 options, or none
  for a free-text question, headers of at most 12 characters; ASK_MAX_QUESTIONS, ASK_MAX_OPTIONS,
  ASK_HEADER_MAX_LENGTH and ASK_QUESTION_MAX_LENGTH change the limits). The interface is drawn on
  stderr.
  Exit codes: 0 answered, skipped questions included (JSON on stdout) · 1 bad or missing JSON
  (errors on stderr) · 2 cancelled or end of input ({"ok":false,"error_code":"question_cancelled",…}
  on stdout).

Environment:
  TURNKIT_MODEL                          the model when --model is not given (provider:model)
  OPENAI_API_KEY, OPENAI_BASE_URL        key and endpoint of openai and openai-chat
  ANTHROPIC_API_KEY, ANTHROPIC_BASE_URL  key and endpoint of anthropic
  TURNKIT_DIR                            folder of the run files
`;

const zhCN = `turnkit-demo：TurnKit 交互演示。一个液氮冻存管理助手，会暂停下来向您提问或请求批准；
每次暂停都会保存，之后任何进程都可以继续运行。

用法：
  turnkit-demo [消息]             与助手对话（默认消息：解冻一支 K562）
  turnkit-demo resume <runId>     在当前进程中继续一个已保存的运行
  turnkit-demo runs               列出已保存的运行：状态以及正在等待什么
  turnkit-demo inbox              列出所有已保存运行等待回答的事项（最早的在前），选一个回答
  turnkit-demo stop <runId> [原因]  从任意终端停止运行：别处正在进行的一轮在下一次调用前结束；
                                  等待中的运行其问题被取消
  turnkit-demo tell <runId> <消息>  从任意终端为运行排队一条消息：别处正在进行的一轮在下一次
                                  模型调用前加入它；等待中的运行在回答后再加入
  turnkit-demo record [runId] [文件]  将一个运行（默认最新的）的录制保存为 JSON
  turnkit-demo replay <文件>      用当前 Agent 回放录制（不调用模型、不运行工具、无需人工），
                                  输出行为不同之处；有不同则退出码为 1
  turnkit-demo ask '<json>'       在 shell 中提出 AskUserQuestion 问题；输出 {"answers":{…}}

选项：
  --lang en|zh-CN    界面语言（默认取自 LC_ALL / LC_MESSAGES / LANG）
  --json             同时在 stdout 上以 JSON 行输出每个事件（界面改为输出到 stderr）
  --dir <路径>       运行文件所在目录（默认 .turnkit/runs，或 TURNKIT_DIR）
  --model provider:model  使用真实模型代替离线脚本（默认取 TURNKIT_MODEL，否则离线；
                     仅设置密钥不会联网）。提供方：openai（Responses API）、openai-chat
                     （Chat Completions，适用于兼容 OpenAI 的服务）、anthropic（Messages API）；
                     例如 openai:gpt-4.1-mini、anthropic:claude-sonnet-4-5
  --offline          即使设置了 TURNKIT_MODEL 也使用脚本模型
  --timeout-seconds <n>  Agent 提问的等待时间（默认 300 秒；0 表示不限时）。卡片上显示倒计时；
                     超时后会告知 Agent，Agent 将继续执行
  -h, --help         显示帮助
  -v, --version      显示版本

在终端中回答：↑/↓ 移动 · 空格 选择（多选）· 数字 跳到对应行（快速连按两个数字，如 1 2，
  跳到第 12 行）· 1,3 选择第 1 和第 3 行（多选）· 0 = 其他 · 在“其他”/备注行中直接输入，
  没有选项的问题在“回答”行输入 · 回车 确定 · 卡片最后两行可跳过此问题或取消提问（会告知 Agent，Agent 将继续执行）·
  Esc 或 Ctrl-D 退出（不发送任何内容：运行仍会保存并继续等待）。
通过管道回答：1 · 1,3（多选）· 10 · 0 或 "other"，然后在下一行输入文本 ·
  没有选项的问题直接取整行作为回答 · /skip 跳过此问题 · /cancel 取消提问（会告知 Agent，
  Agent 将继续执行）· 数字总是按行号选择（非数字的一行可以是完整的选项文字）·
  空行选择第 1 项（推荐项）· 输入结束即退出（不发送任何内容：运行仍会保存并继续等待）。
批准：批准、拒绝，或编辑工具的输入（JSON），可附理由。
表单：工具可在执行中途提问（多个盒子都有该细胞系时，record_thaw 会问从哪个盒取）：每项一张卡片 ·
  选项按编号（或方向键）选择 · y/n · 文本、数字或 JSON · /cancel 或“取消填写”行取消表单
  （会告知 Agent，Agent 将继续执行）。

ask：问题按 AskUserQuestion 工具的规则校验（1-4 个问题、2-4 个选项或不设选项的自由回答、
  标题最多 12 个字符；可用 ASK_MAX_QUESTIONS、ASK_MAX_OPTIONS、ASK_HEADER_MAX_LENGTH、ASK_QUESTION_MAX_LENGTH 调整）。
  界面输出到 stderr。退出码：0 已回答（JSON 在 stdout）· 1 JSON 错误或缺失（错误在 stderr）·
  2 已取消或输入结束（stdout 输出 {"ok":false,"error_code":"question_cancelled",…}）。
  跳过的问题也算已回答（退出码 0）。

环境变量：
  TURNKIT_MODEL                          未指定 --model 时使用的模型（provider:model）
  OPENAI_API_KEY、OPENAI_BASE_URL        openai 与 openai-chat 的密钥和地址
  ANTHROPIC_API_KEY、ANTHROPIC_BASE_URL  anthropic 的密钥和地址
  TURNKIT_DIR                            运行文件所在目录
`;

export function helpText(lang: Lang): string {
  return lang === 'zh-CN' ? zhCN : en;
}
