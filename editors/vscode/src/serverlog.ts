/**
 * The server's stderr in the output channel, at the level the server logged it.
 *
 * `arbor-ls` writes `arbor-ls LEVEL logger: message` lines (lsp_server/cli.py); vscode-languageclient
 * would log every stderr line as an error. `classify` maps Python's level names to the channel's
 * (DEBUG → debug, INFO → info, WARNING → warn, ERROR / CRITICAL → error); a line in another shape
 * (a traceback, a library's print) is kept as info, or as error inside a traceback.
 * `RepeatLimiter` shows a repeated warning or error (the same text, digits ignored) once per
 * `windowMs` and then says how many were left out. Nothing here imports `vscode`; the clock is
 * injected.
 */

export type ChannelLevel = "debug" | "info" | "warn" | "error";

const LEVELS: Record<string, ChannelLevel> = {
  DEBUG: "debug",
  INFO: "info",
  WARNING: "warn",
  ERROR: "error",
  CRITICAL: "error",
};
const SERVER_LINE = /^arbor-ls (DEBUG|INFO|WARNING|ERROR|CRITICAL) (.*)$/;

export interface Classified {
  level: ChannelLevel;
  text: string;
}

export class LineClassifier {
  private inTraceback = false;

  classify(line: string): Classified {
    const match = SERVER_LINE.exec(line);
    if (match) {
      this.inTraceback = false;
      return { level: LEVELS[match[1]], text: match[2] };
    }
    if (line.startsWith("Traceback (most recent call last)")) {
      this.inTraceback = true;
    }
    return { level: this.inTraceback ? "error" : "info", text: line };
  }
}

export class RepeatLimiter {
  private readonly seen = new Map<string, { since: number; suppressed: number }>();

  constructor(
    private readonly windowMs: number,
    private readonly now: () => number,
    private readonly maxKeys = 256,
  ) {}

  /**
   * What to write for one message: the text (with a note of how many like it were left out
   * since it was last written), or undefined to leave it out.
   */
  admit(entry: Classified): string | undefined {
    if (entry.level !== "warn" && entry.level !== "error") {
      return entry.text;
    }
    const key = `${entry.level} ${entry.text.replace(/\d+/g, "#")}`;
    const now = this.now();
    const last = this.seen.get(key);
    if (last && now - last.since < this.windowMs) {
      last.suppressed++;
      return undefined;
    }
    this.seen.delete(key);
    this.seen.set(key, { since: now, suppressed: 0 });
    if (this.seen.size > this.maxKeys) {
      this.seen.delete(this.seen.keys().next().value as string);
    }
    const left = last?.suppressed ?? 0;
    return left > 0 ? `${entry.text} (${left} more like it in the last ${Math.round((now - last!.since) / 1000)} s)` : entry.text;
  }
}
