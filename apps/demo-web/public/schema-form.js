// The fields of a tool's form (`ctx.ask({ input })`), read from the JSON Schema the handler sends in
// `pending[i].payload.schema`, and the value typed in each. The page draws what a demo form needs:
// an object whose fields are enums (radio buttons), booleans (a checkbox), strings or numbers (a
// text field); any other field, or a schema that is not an object of fields, is one JSON text field.
// No DOM here, so tests can run it in Node. Core checks the value against the schema when it is sent.

const isObject = (value) => typeof value === 'object' && value !== null && !Array.isArray(value);

function kindOf(schema) {
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return 'enum';
  return ['boolean', 'string', 'number', 'integer'].includes(schema.type) ? schema.type : 'json';
}

function field(key, schema, required, fallbackTitle) {
  const kind = kindOf(schema);
  return {
    key,
    title: typeof schema.title === 'string' && schema.title !== '' ? schema.title : fallbackTitle,
    description: typeof schema.description === 'string' ? schema.description : '',
    required,
    kind,
    choices: kind === 'enum' ? schema.enum : [],
  };
}

/**
 * The fields of a form's schema: one per property of an object schema, in schema order ({ key,
 * title, description, required, kind, choices }); else one JSON field (key null) titled `valueTitle`.
 */
export function formFields(schema, valueTitle) {
  const properties = isObject(schema) ? schema.properties : undefined;
  if (schema?.type !== 'object' || !isObject(properties) || Object.keys(properties).length === 0) {
    return [field(null, isObject(schema) ? schema : {}, true, valueTitle)];
  }
  const required = new Set(Array.isArray(schema.required) ? schema.required : []);
  return Object.entries(properties).map(([key, property]) =>
    field(key, isObject(property) ? property : {}, required.has(key), key),
  );
}

/** How a choice is shown: strings as they are, anything else as JSON. */
export const showChoice = (value) => (typeof value === 'string' ? value : JSON.stringify(value));

/**
 * The value of a text field: { ok: true, value } (undefined: an optional field left empty), or
 * { ok: false, problem: 'required' | 'number' | 'json' }.
 */
export function parseText(formField, text) {
  const trimmed = text.trim();
  if (trimmed === '')
    return formField.required ? { ok: false, problem: 'required' } : { ok: true, value: undefined };
  if (formField.kind === 'string') return { ok: true, value: trimmed };
  if (formField.kind === 'number' || formField.kind === 'integer') {
    const number = Number(trimmed);
    const valid = Number.isFinite(number) && (formField.kind === 'number' || Number.isInteger(number));
    return valid ? { ok: true, value: number } : { ok: false, problem: 'number' };
  }
  try {
    return { ok: true, value: JSON.parse(trimmed) };
  } catch {
    return { ok: false, problem: 'json' };
  }
}

/** The form's value from its fields' values: an object of those given, or the one whole value. */
export function formValue(fields, values) {
  if (fields.length === 1 && fields[0].key === null) return values[0];
  const value = {};
  fields.forEach((formField, index) => {
    if (values[index] !== undefined) value[formField.key] = values[index];
  });
  return value;
}
