/** `turnkit-demo [message]`: starts a run with the message (or the scenario's opening line) and chats. */
import type { App } from '../app.js';
import { safeText } from '../sanitize.js';
import { initialFreezer } from '../scenario/freezer.js';
import { scenarioText } from '../scenario/text.js';
import { drive } from './drive.js';

export async function chat(app: App, words: string[]): Promise<number> {
  const { ui } = app;
  const input = words.join(' ').trim() || scenarioText(app.options.lang).opening;
  ui.print(ui.color.dim(app.modelBanner));
  ui.print(`${ui.color.bold(ui.color.blue(ui.t('you')))} › ${safeText(input)}`);
  const result = await app.turn((options) =>
    app.sessions.start({ input, context: initialFreezer() }, options),
  );
  return drive(app, result);
}
