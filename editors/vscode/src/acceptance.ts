/**
 * How many characters an accept inserted, measured from the document changes themselves.
 *
 * VS Code's stable API has no shown / partially-accepted events for inline completions (they are
 * the proposed `inlineCompletionsAdditions`), so the extension measures: every document change is
 * fed to `changed`, with its net inserted length (inserted text minus replaced text). A full
 * accept (the item's command, run after VS Code applied the item) takes the last change's net
 * length; a partial accept (`arbor.acceptNextWord` / `arbor.acceptNextLine`, which run VS Code's
 * own command) takes the sum of the changes made while it ran.
 *
 * Invariant: one insertion is reported once. When VS Code's next-word command finds the word is
 * all that is left it accepts the whole item, whose command then runs too; that full accept is
 * recognised as part of the partial (it comes while the partial runs, or it follows the partial's
 * own change) and is not reported again. Nothing here imports `vscode`.
 */

export interface ContentChange {
  text: string;
  rangeLength: number;
}

interface Change {
  uri: string;
  version: number;
  net: number;
}

export class AcceptMeter {
  /** The last change of each document (changes elsewhere, output channels included, never mix in). */
  private readonly last = new Map<string, Change>();
  private running: { uri: string; net: number } | undefined;
  private lastPartial: Change | undefined;

  constructor(private readonly maxDocuments = 64) {}

  changed(uri: string, version: number, changes: readonly ContentChange[]): void {
    const net = changes.reduce((sum, change) => sum + change.text.length - change.rangeLength, 0);
    this.last.delete(uri);
    this.last.set(uri, { uri, version, net });
    if (this.last.size > this.maxDocuments) {
      this.last.delete(this.last.keys().next().value as string);
    }
    if (this.running && this.running.uri === uri) {
      this.running.net += net;
    }
  }

  /** Call before running VS Code's partial-accept command. */
  beginPartial(uri: string): void {
    this.running = { uri, net: 0 };
  }

  /** Call after it ran: the characters it inserted (0 when it inserted nothing). */
  endPartial(): number {
    const running = this.running;
    this.running = undefined;
    if (!running) {
      return 0;
    }
    const last = this.last.get(running.uri);
    if (last) {
      this.lastPartial = { ...last };
    }
    return Math.max(0, running.net);
  }

  /**
   * The characters a full accept in `uri` inserted, or undefined when this accept belongs to a
   * partial accept (already reported) or no change was seen.
   */
  fullAccept(uri: string): { chars: number } | { partOfPartial: true } | undefined {
    if (this.running && this.running.uri === uri) {
      return { partOfPartial: true };
    }
    const last = this.last.get(uri);
    if (!last) {
      return undefined;
    }
    const partial = this.lastPartial;
    if (partial && partial.uri === last.uri && partial.version === last.version) {
      return { partOfPartial: true };
    }
    return last.net > 0 ? { chars: last.net } : undefined;
  }
}
