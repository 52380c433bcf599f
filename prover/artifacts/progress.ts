// A dependency-free step reporter for long build pipelines.
// On a TTY one live line per step shows a spinner, the elapsed time and the latest note from the tool;
// elsewhere (CI logs) it prints plain start/finish lines plus a heartbeat so a silent minute is not
// mistaken for a hang.

const FRAMES = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];
const HEARTBEAT_MS = 30_000;

export interface StepHandle {
  /** Latest detail from the running tool; shown live on a TTY, in the heartbeat otherwise. */
  note(message: string): void;
}

export interface ProgressOptions {
  total?: number;
  stream?: NodeJS.WriteStream;
  /** Override TTY detection (tests, or forcing plain output with NO_COLOR-style env). */
  tty?: boolean;
}

export function formatSeconds(ms: number): string {
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)}s`;
  const m = Math.floor(ms / 60_000);
  const s = Math.round((ms % 60_000) / 1000);
  return `${m}m${String(s).padStart(2, "0")}s`;
}

export class Progress {
  private index = 0;
  private total: number;
  private readonly out: NodeJS.WriteStream;
  private readonly tty: boolean;

  constructor(options: ProgressOptions = {}) {
    this.total = options.total ?? 0;
    this.out = options.stream ?? process.stderr;
    this.tty = options.tty ?? (Boolean(this.out.isTTY) && process.env.CI === undefined);
  }

  setTotal(total: number): void {
    this.total = total;
  }

  private prefix(): string {
    const width = String(this.total || this.index).length;
    return `[${String(this.index).padStart(width)}/${this.total || "?"}]`;
  }

  /** Prints a line that is not a step (warnings, summaries) without corrupting a live line. */
  log(message: string): void {
    this.out.write(`${message}\n`);
  }

  /** Counts a step that was satisfied from cache, so the numbering stays stable between runs. */
  skip(label: string, reason = "cached"): void {
    this.index++;
    this.out.write(`${this.prefix()} ${label} … ${reason}\n`);
  }

  async step<T>(label: string, run: (handle: StepHandle) => Promise<T>): Promise<T> {
    this.index++;
    const prefix = this.prefix();
    const started = Date.now();
    let note = "";
    let frame = 0;
    let lastBeat = started;

    const render = (): void => {
      const elapsed = formatSeconds(Date.now() - started);
      const line = `${FRAMES[frame++ % FRAMES.length]} ${prefix} ${label} … ${elapsed}${note ? `  ${note}` : ""}`;
      const columns = this.out.columns || 120;
      this.out.write(`\r\x1b[2K${line.length > columns - 1 ? line.slice(0, columns - 2) + "…" : line}`);
    };
    const clear = (): void => {
      if (this.tty) this.out.write("\r\x1b[2K");
    };

    let timer: NodeJS.Timeout;
    if (this.tty) {
      render();
      timer = setInterval(render, 100);
    } else {
      this.out.write(`${prefix} ${label} …\n`);
      timer = setInterval(() => {
        if (Date.now() - lastBeat < HEARTBEAT_MS) return;
        lastBeat = Date.now();
        this.out.write(
          `${prefix}   still running ${formatSeconds(Date.now() - started)}${note ? `: ${note}` : ""}\n`,
        );
      }, 1000);
    }
    // A hung tool should not be kept alive by our own ticker once everything else has exited.
    timer.unref();

    const handle: StepHandle = {
      note: (message) => {
        note = message.replace(/\s+/g, " ").trim();
      },
    };
    try {
      const result = await run(handle);
      clearInterval(timer);
      clear();
      this.out.write(`${prefix} ${label} … ${formatSeconds(Date.now() - started)}\n`);
      return result;
    } catch (error) {
      clearInterval(timer);
      clear();
      this.out.write(`${prefix} ${label} … FAILED after ${formatSeconds(Date.now() - started)}\n`);
      throw error;
    }
  }
}
