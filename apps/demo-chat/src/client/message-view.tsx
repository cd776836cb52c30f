/**
 * One message, part by part, as AI SDK 7 and 6 hand them over: text as text, every tool part as a line
 * (running, done, failed, rejected), and what the run waits for as a card — a question or a form
 * (`tool-AskUserQuestion` at `input-available`, its input `{ questions }` or `{ message, schema }`)
 * and an approval (any tool part at `approval-requested`). Cards are live only in the last message,
 * between turns (`respond` is null otherwise).
 */
import { type TurnkitMetadata, turnkitMetadataOf } from '@turnkit/adapters/ai-sdk/client';
import { getToolName, isToolUIPart, type UIMessage } from 'ai';
import { ApprovalCard } from './approval-card.js';
import { BudgetCard, type BudgetInput } from './budget-card.js';
import { FormCard, type FormInput } from './form-card.js';
import { type Question, QuestionCard } from './question-card.js';

/** How the cards answer: the `useChat` calls behind them. */
export interface Responders {
  /** `addToolOutput` of a question (`{ answers }`) or a form (`{ value }`). */
  answer(toolCallId: string, output: unknown): void;
  /** `addToolOutput` at `output-error`: the question or form is cancelled, `reason` tells the model why. */
  dismiss(toolCallId: string, reason: string): void;
  /** `addToolApprovalResponse`. */
  decide(approvalId: string, approved: boolean, reason?: string): void;
  /** A budget interaction: approve with `extend`, or (null) reject it. */
  budget(interactionId: string, extend: BudgetInput['limit'] | null): void;
}

type Part = UIMessage['parts'][number];
type ToolPart = Extract<Part, { toolCallId: string }>;

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** A budget interaction's synthetic part: its input is the payload `{ spent, limit }`. */
const isBudget = (input: unknown): input is BudgetInput =>
  isRecord(input) && isRecord(input.spent) && isRecord(input.limit);

const isQuestions = (input: unknown): input is { questions: Question[] } =>
  isRecord(input) && Array.isArray(input.questions);

const isForm = (input: unknown): input is FormInput =>
  isRecord(input) && typeof input.message === 'string' && isRecord(input.schema);

export function MessageView(props: { message: UIMessage; respond: Responders | null }) {
  const { message, respond } = props;
  const turnkit = turnkitMetadataOf(message);
  return (
    <article className={`bubble ${message.role}`}>
      {message.parts.map((part, index) =>
        isToolUIPart(part) ? (
          <ToolPartView key={part.toolCallId} part={part} respond={respond} turnkit={turnkit} />
        ) : part.type === 'text' ? (
          // biome-ignore lint/suspicious/noArrayIndexKey: text parts have no id and never move.
          <TextPart key={index} text={part.text} />
        ) : null,
      )}
    </article>
  );
}

/** The agent's final answer: a thaw plan (its `output` schema) as JSON. */
interface Plan {
  summary: string;
  thawed: { cellLine: string; box: string; positions: string[]; vialsLeft: number | null }[];
  medium: string | null;
  followUps: string[];
  nextSteps: string[];
}

/** The plan a text holds, or null (prose; a plan still streaming in). */
function planOf(text: string): Plan | null {
  if (!text.trimStart().startsWith('{')) return null;
  try {
    const value = JSON.parse(text) as unknown;
    const lists = ['thawed', 'followUps', 'nextSteps'] as const;
    return isRecord(value) &&
      typeof value.summary === 'string' &&
      lists.every((key) => Array.isArray(value[key]))
      ? (value as unknown as Plan)
      : null;
  } catch {
    return null;
  }
}

/** A text part: prose as it is; a thaw plan as its summary, a table of what was thawed and the next steps. */
function TextPart(props: { text: string }) {
  const plan = planOf(props.text);
  if (!plan) {
    const json = props.text.trimStart().startsWith('{');
    return <p className="text">{json ? 'Writing the plan…' : props.text}</p>;
  }
  return (
    <div className="plan">
      <p className="text">{plan.summary}</p>
      {plan.thawed.length > 0 && (
        <table className="plan-table">
          <caption>Thaw plan</caption>
          <thead>
            <tr>
              <th scope="col">Cell line</th>
              <th scope="col">Box</th>
              <th scope="col">Positions</th>
              <th scope="col">Vials left</th>
            </tr>
          </thead>
          <tbody>
            {plan.thawed.map((thaw) => (
              <tr key={`${thaw.cellLine} ${thaw.box}`}>
                <td>{thaw.cellLine}</td>
                <td>{thaw.box}</td>
                <td>{thaw.positions.join(', ')}</td>
                <td>{thaw.vialsLeft === null ? '—' : thaw.vialsLeft}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {plan.medium && <p className="plan-fact">Medium: {plan.medium}</p>}
      {plan.followUps.length > 0 && <p className="plan-fact">Follow-ups: {plan.followUps.join(', ')}</p>}
      {plan.nextSteps.length > 0 && (
        <ul className="plan-next">
          {plan.nextSteps.map((step) => (
            <li key={step}>{step}</li>
          ))}
        </ul>
      )}
    </div>
  );
}

function ToolPartView(props: {
  part: ToolPart;
  respond: Responders | null;
  turnkit: TurnkitMetadata | null;
}) {
  const { part, respond, turnkit } = props;
  const tool = getToolName(part);
  const { toolCallId } = part;
  if (respond && part.state === 'approval-requested') {
    // The run's own view of the approval: who asked (the metadata) and why (the run, read by the card).
    const pending = turnkit?.pending.find((item) => item.id === part.approval.id);
    return (
      <ApprovalCard
        toolName={tool}
        input={part.input}
        runId={turnkit?.runId ?? null}
        approvalId={part.approval.id}
        agentPath={pending?.agentPath ?? []}
        onDecide={(approved, reason) => respond.decide(part.approval.id, approved, reason)}
      />
    );
  }
  if (respond && tool === 'AskUserQuestion' && part.state === 'input-available') {
    const dismiss = (reason: string) => respond.dismiss(toolCallId, reason);
    if (isBudget(part.input)) {
      return <BudgetCard input={part.input} onDecide={(extend) => respond.budget(toolCallId, extend)} />;
    }
    if (isQuestions(part.input)) {
      return (
        <QuestionCard
          questions={part.input.questions}
          onAnswer={(answers) => respond.answer(toolCallId, { answers })}
          onDismiss={() => dismiss('The user dismissed the question.')}
        />
      );
    }
    if (isForm(part.input)) {
      return (
        <FormCard
          form={part.input}
          onSubmit={(value) => respond.answer(toolCallId, { value })}
          onDismiss={() => dismiss('The user dismissed the form.')}
        />
      );
    }
  }
  return <ToolLine tool={tool} part={part} />;
}

/**
 * `{ answers: { lines: { selected: ['K562'] }, medium: 'DMEM' } }` → `Cell lines: K562 · Medium:
 * DMEM`: each answer under its question's header (the card sends them keyed by question id; the
 * run's result is keyed by header already).
 */
function answersText(output: unknown, input: unknown): string | null {
  if (!isRecord(output)) return null;
  const headers = new Map<string, string>(
    isQuestions(input)
      ? input.questions.flatMap((question) => (question.id ? [[question.id, question.header]] : []))
      : [],
  );
  const answers = output.answers ?? output.value;
  if (!isRecord(answers)) return typeof answers === 'string' ? answers : null;
  const show = (value: unknown): string => {
    if (typeof value === 'string') return value;
    if (Array.isArray(value)) return value.map(show).join(', ');
    if (isRecord(value) && Array.isArray(value.selected)) {
      return [...value.selected.map(show), ...(typeof value.other === 'string' ? [value.other] : [])].join(
        ', ',
      );
    }
    return JSON.stringify(value);
  };
  return Object.entries(answers)
    .map(([key, value]) => `${headers.get(key) ?? key}: ${show(value)}`)
    .join(' · ');
}

/** A tool part that waits for nothing from this page: its name, its state, and what it returned. */
function ToolLine(props: { tool: string; part: ToolPart }) {
  const { tool, part } = props;
  switch (part.state) {
    case 'output-available': {
      const answered = tool === 'AskUserQuestion' ? answersText(part.output, part.input) : null;
      return answered !== null ? (
        <p className="tool done">✓ Answered: {answered}</p>
      ) : (
        <details className="tool done">
          <summary>✓ {tool}</summary>
          <pre>{JSON.stringify(part.output, null, 2)}</pre>
        </details>
      );
    }
    case 'output-error':
      return (
        <p className="tool failed">
          ✕ {tool}: {part.errorText}
        </p>
      );
    case 'output-denied':
      return (
        <p className="tool failed">
          ✕ {tool} rejected{part.approval.reason ? `: ${part.approval.reason}` : ''}
        </p>
      );
    case 'approval-responded':
      return (
        <p className="tool running">{part.approval.approved ? `✓ ${tool} approved` : `✕ ${tool} rejected`}</p>
      );
    case 'approval-requested':
      return <p className="tool running">… {tool} waits for approval</p>;
    default:
      return <p className="tool running">… {tool}</p>;
  }
}
