/**
 * A one-line spinner while the model or a tool works. Written here rather than taken from a spinner
 * package because those install a SIGINT handler that exits the process, and Ctrl-C must instead
 * abort the turn through its AbortSignal so the run is saved. Draws nothing when not on a terminal.
 */
import type { Ui } from './ui.js';

const FRAMES = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];
const INTERVAL_MS = 80;

export interface Spinner {
  start(text: string): void;
  /** Clears the spinner line; the next output starts on a clean line. */
  stop(): void;
}

export function createSpinner(ui: Ui): Spinner {
  const enabled = Boolean(ui.out.isTTY);
  let timer: NodeJS.Timeout | undefined;
  let frame = 0;
  let text = '';
  const draw = () => {
    ui.out.write(`\r\u001b[2K${ui.color.cyan(FRAMES[frame % FRAMES.length]!)} ${ui.color.dim(text)}`);
    frame++;
  };
  return {
    start(next) {
      text = next;
      if (!enabled) return;
      if (!timer) {
        ui.out.write('\u001b[?25l');
        timer = setInterval(draw, INTERVAL_MS);
      }
      draw();
    },
    stop() {
      if (!timer) return;
      clearInterval(timer);
      timer = undefined;
      ui.out.write('\r\u001b[2K\u001b[?25h');
    },
  };
}
