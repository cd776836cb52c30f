/**
 * A form card: a tool's `ctx.ask({ input })`, streamed as a synthetic `tool-AskUserQuestion` part
 * whose input is `{ message, schema }` (a JSON Schema). An object of fields becomes one row per
 * field — an enum radio buttons, a boolean a checkbox, a string or a number a text field, anything
 * else JSON text — and any other schema one JSON field for the whole value. The server checks the
 * value against the schema again; this card only shapes it.
 */
import { type FormEvent, useState } from 'react';

/** A JSON Schema, as far as the card reads it. */
interface Schema {
  type?: string;
  title?: string;
  description?: string;
  enum?: unknown[];
  properties?: Record<string, Schema>;
  required?: string[];
}

/** The input of a form part. */
export interface FormInput {
  message: string;
  schema: Schema;
}

type Kind = 'enum' | 'boolean' | 'number' | 'string' | 'json';

function kindOf(schema: Schema): Kind {
  if (Array.isArray(schema.enum)) return 'enum';
  if (schema.type === 'boolean') return 'boolean';
  if (schema.type === 'number' || schema.type === 'integer') return 'number';
  return schema.type === 'string' ? 'string' : 'json';
}

/** What one field's text means, or an error to show. */
function parseField(kind: Kind, text: string): { value: unknown } | { error: string } {
  if (kind === 'number') {
    const value = Number(text);
    return Number.isFinite(value) ? { value } : { error: 'is not a number' };
  }
  if (kind === 'json') {
    try {
      return { value: JSON.parse(text) };
    } catch {
      return { error: 'is not valid JSON' };
    }
  }
  return { value: text };
}

export function FormCard(props: {
  form: FormInput;
  onSubmit: (value: unknown) => void;
  onDismiss: () => void;
}) {
  const { schema } = props.form;
  const fields = schema.type === 'object' && schema.properties ? Object.entries(schema.properties) : null;
  const required = new Set(schema.required ?? []);
  const [texts, setTexts] = useState<Record<string, string>>({});
  const [checks, setChecks] = useState<Record<string, boolean>>({});
  const [problem, setProblem] = useState('');

  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (!fields) {
      const read = parseField('json', texts[''] ?? '');
      if ('error' in read) return setProblem(`The answer ${read.error}.`);
      return props.onSubmit(read.value);
    }
    const value: Record<string, unknown> = {};
    for (const [name, field] of fields) {
      const kind = kindOf(field);
      if (kind === 'boolean') {
        value[name] = checks[name] ?? false;
        continue;
      }
      const text = (texts[name] ?? '').trim();
      if (text === '') {
        if (required.has(name)) return setProblem(`${field.title ?? name} is required.`);
        continue;
      }
      const read =
        kind === 'enum'
          ? { value: field.enum!.find((item) => String(item) === text) }
          : parseField(kind, text);
      if ('error' in read) return setProblem(`${field.title ?? name} ${read.error}.`);
      value[name] = read.value;
    }
    props.onSubmit(value);
  };

  const setText = (name: string, text: string) => setTexts({ ...texts, [name]: text });
  return (
    <form className="card form-card" onSubmit={submit}>
      <p className="title">{props.form.message}</p>
      {!fields && (
        <textarea
          aria-label="Answer (JSON)"
          value={texts[''] ?? ''}
          onChange={(e) => setText('', e.target.value)}
        />
      )}
      {fields?.map(([name, field]) => {
        const kind = kindOf(field);
        const label = field.title ?? name;
        return (
          <fieldset key={name} data-field={name}>
            <legend>
              {label}
              {field.description && <span className="description">{field.description}</span>}
            </legend>
            {kind === 'enum' &&
              field.enum!.map((item) => (
                <label key={String(item)} className="option">
                  <input
                    type="radio"
                    name={name}
                    checked={texts[name] === String(item)}
                    onChange={() => setText(name, String(item))}
                  />
                  <span className="label">{String(item)}</span>
                </label>
              ))}
            {kind === 'boolean' && (
              <label className="option">
                <input
                  type="checkbox"
                  checked={checks[name] ?? false}
                  onChange={(event) => setChecks({ ...checks, [name]: event.target.checked })}
                />
                <span className="label">Yes</span>
              </label>
            )}
            {(kind === 'string' || kind === 'number') && (
              <input
                type="text"
                aria-label={label}
                value={texts[name] ?? ''}
                onChange={(e) => setText(name, e.target.value)}
              />
            )}
            {kind === 'json' && (
              <textarea
                aria-label={`${label} (JSON)`}
                value={texts[name] ?? ''}
                onChange={(e) => setText(name, e.target.value)}
              />
            )}
          </fieldset>
        );
      })}
      {problem && <p className="problem">{problem}</p>}
      <div className="actions">
        <button type="submit">Send</button>
        <button type="button" className="secondary" onClick={props.onDismiss}>
          Dismiss
        </button>
      </div>
    </form>
  );
}
