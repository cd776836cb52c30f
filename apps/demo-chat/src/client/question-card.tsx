/**
 * A question card: the `{ questions }` of a `tool-AskUserQuestion` part (the question tool's
 * normalised input: id, header, question, options with descriptions, multiSelect). Options are
 * radio buttons or checkboxes; a question with options also takes an answer of one's own (Other),
 * a question without options is one text field. The answers go out keyed by question id, in the
 * shapes the question tool takes: `{ selected, other? }`, or the text of a free-text question.
 */
import { type FormEvent, useState } from 'react';

/** One question of the question tool. */
export interface Question {
  id?: string;
  header: string;
  question: string;
  multiSelect?: boolean;
  options: { label: string; description?: string }[];
}

type Answer = string | { selected: string[]; other?: string };

const keyOf = (question: Question) => question.id ?? question.header;

export function QuestionCard(props: {
  questions: Question[];
  onAnswer: (answers: Record<string, Answer>) => void;
  onDismiss: () => void;
}) {
  const [selected, setSelected] = useState<Record<string, string[]>>({});
  const [typed, setTyped] = useState<Record<string, string>>({});
  const [problem, setProblem] = useState('');

  const choose = (question: Question, label: string, on: boolean) => {
    const key = keyOf(question);
    const before = selected[key] ?? [];
    const next = question.multiSelect
      ? before.filter((item) => item !== label).concat(on ? [label] : [])
      : [label];
    setSelected({ ...selected, [key]: next });
    // A single-select question takes one option or an answer of one's own, not both.
    if (!question.multiSelect) setTyped({ ...typed, [key]: '' });
  };
  const type = (question: Question, text: string) => {
    const key = keyOf(question);
    setTyped({ ...typed, [key]: text });
    if (!question.multiSelect && question.options.length > 0 && text !== '') {
      setSelected({ ...selected, [key]: [] });
    }
  };
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const answers: Record<string, Answer> = {};
    for (const question of props.questions) {
      const key = keyOf(question);
      const other = (typed[key] ?? '').trim();
      const chosen = (selected[key] ?? []).filter((label) => question.options.some((o) => o.label === label));
      if (chosen.length === 0 && other === '') {
        setProblem(`Answer “${question.header}” first.`);
        return;
      }
      answers[key] =
        question.options.length === 0 ? other : { selected: chosen, ...(other ? { other } : {}) };
    }
    props.onAnswer(answers);
  };

  return (
    <form className="card question-card" onSubmit={submit}>
      {props.questions.map((question) => {
        const key = keyOf(question);
        return (
          <fieldset key={key} data-question={key}>
            <legend>
              <span className="chip">{question.header}</span> {question.question}
            </legend>
            {question.options.map((option) => (
              <label key={option.label} className="option">
                <input
                  type={question.multiSelect ? 'checkbox' : 'radio'}
                  name={key}
                  checked={(selected[key] ?? []).includes(option.label)}
                  onChange={(event) => choose(question, option.label, event.target.checked)}
                />
                <span className="label">{option.label}</span>
                {option.description && <span className="description">{option.description}</span>}
              </label>
            ))}
            <input
              type="text"
              className="other"
              aria-label={
                question.options.length === 0 ? question.header : `Other answer for ${question.header}`
              }
              placeholder={question.options.length === 0 ? 'Your answer' : 'Other (optional)'}
              value={typed[key] ?? ''}
              onChange={(event) => type(question, event.target.value)}
            />
          </fieldset>
        );
      })}
      {problem && <p className="problem">{problem}</p>}
      <div className="actions">
        <button type="submit">Send answers</button>
        <button type="button" className="secondary" onClick={props.onDismiss}>
          Dismiss
        </button>
      </div>
    </form>
  );
}
