/**
 * The fields of a tool's form (`ctx.ask({ input: { message, schema } })`), read from the JSON
 * Schema core stores in `payload.schema`, and the typed text of each parsed into its value. The
 * CLI draws what a demo form needs: an object whose fields are enums (choices), booleans (yes or
 * no), strings, numbers or integers; any other field, or a schema that is not an object of fields,
 * is one JSON text field. Core checks the assembled value against the schema when it is sent.
 */
import type { Translate } from './i18n.js';
import { safeLine } from './sanitize.js';

/** How a field is answered. */
export type FieldKind = 'enum' | 'boolean' | 'string' | 'number' | 'integer' | 'json';

/** One field of a form. */
export interface FormField {
  /** The property it fills in; null when the field is the whole value. */
  key: string | null;
  title: string;
  description: string;
  required: boolean;
  kind: FieldKind;
  /** The values of an enum field, in schema order. */
  choices: unknown[];
}

type Schema = Record<string, unknown>;

const isObject = (value: unknown): value is Schema =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

function kindOf(schema: Schema): FieldKind {
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return 'enum';
  switch (schema.type) {
    case 'boolean':
    case 'string':
    case 'number':
    case 'integer':
      return schema.type;
    default:
      return 'json';
  }
}

function field(key: string | null, schema: Schema, required: boolean, fallbackTitle: string): FormField {
  const kind = kindOf(schema);
  return {
    key,
    title: typeof schema.title === 'string' && schema.title !== '' ? schema.title : fallbackTitle,
    description: typeof schema.description === 'string' ? schema.description : '',
    required,
    kind,
    choices: kind === 'enum' ? (schema.enum as unknown[]) : [],
  };
}

/**
 * The fields of a form's schema: one per property of an object schema, in schema order; else one
 * JSON field for the whole value, titled `valueTitle`.
 */
export function formFields(schema: Schema, valueTitle: string): FormField[] {
  const properties = schema.properties;
  if (schema.type !== 'object' || !isObject(properties) || Object.keys(properties).length === 0) {
    return [field(null, schema, true, valueTitle)];
  }
  const required = new Set(Array.isArray(schema.required) ? schema.required : []);
  return Object.entries(properties).map(([key, property]) =>
    field(key, isObject(property) ? property : {}, required.has(key), key),
  );
}

/** How a value is shown on a card: strings as they are, anything else as JSON. */
export function showValue(value: unknown): string {
  return safeLine(typeof value === 'string' ? value : (JSON.stringify(value) ?? String(value)));
}

/** A parsed line: the value (undefined: left out), or why it was refused. */
export type FieldParse = { ok: true; value: unknown } | { ok: false; message: string };

const YES = new Set(['y', 'yes', 'true', '1', '是', '对']);
const NO = new Set(['n', 'no', 'false', '0', '否', '不']);

/**
 * Reads the typed text of a field. An enum takes a row number (empty: the first) or an exact
 * value; a boolean y/n; a number a number; a JSON field JSON. Empty text leaves an optional field
 * out and is refused for a required one (an enum's empty line is its first choice).
 */
export function parseFieldText(formField: FormField, input: string, t: Translate): FieldParse {
  const text = input.trim();
  const { kind, choices } = formField;
  if (kind === 'enum') {
    if (text === '') return { ok: true, value: choices[0] };
    const exact = choices.find((choice) => showValue(choice) === text);
    if (exact !== undefined) return { ok: true, value: exact };
    const row = /^\d+$/.test(text) ? Number(text) : Number.NaN;
    if (row >= 1 && row <= choices.length) return { ok: true, value: choices[row - 1] };
    return { ok: false, message: t('notAChoice', { input: safeLine(text), max: choices.length }) };
  }
  if (text === '')
    return formField.required ? { ok: false, message: t('needValue') } : { ok: true, value: undefined };
  switch (kind) {
    case 'string':
      return { ok: true, value: text };
    case 'boolean':
      if (YES.has(text.toLowerCase())) return { ok: true, value: true };
      if (NO.has(text.toLowerCase())) return { ok: true, value: false };
      return { ok: false, message: t('notYesNo', { input: safeLine(text) }) };
    case 'number':
    case 'integer': {
      const number = Number(text);
      const valid = Number.isFinite(number) && (kind === 'number' || Number.isInteger(number));
      if (valid) return { ok: true, value: number };
      return {
        ok: false,
        message: t(kind === 'integer' ? 'notAnInteger' : 'notANumber', { input: safeLine(text) }),
      };
    }
    default:
      try {
        return { ok: true, value: JSON.parse(text) as unknown };
      } catch (error) {
        return { ok: false, message: t('invalidJson', { error: safeLine((error as Error).message) }) };
      }
  }
}

/** The form's value from each field's value: an object of the given fields, or the one whole value. */
export function formValue(fields: FormField[], values: unknown[]): unknown {
  if (fields.length === 1 && fields[0]!.key === null) return values[0];
  const value: Record<string, unknown> = {};
  fields.forEach((formField, index) => {
    if (values[index] !== undefined) value[formField.key!] = values[index];
  });
  return value;
}
