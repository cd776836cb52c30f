// A tiny DOM builder: h('p', { class: 'x' }, 'text', child). Text always goes in as text nodes,
// never as HTML, so nothing from the model or the user can inject markup.

export function h(tag, attributes = {}, ...children) {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === undefined || value === null || value === false) continue;
    if (name.startsWith('on')) element.addEventListener(name.slice(2), value);
    else if (name === 'value') element.value = value;
    else element.setAttribute(name, value === true ? '' : String(value));
  }
  for (const child of children.flat()) {
    if (child === undefined || child === null || child === false) continue;
    element.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return element;
}

let counter = 0;
/** A unique element id. */
export const uid = (prefix) => `${prefix}-${++counter}`;
