/**
 * The arbor-ls language client: finds the executable, starts it on stdio, sends the settings as
 * `initializationOptions` and on every change, and filters completions through the user's toggle.
 *
 * Invariants: at most one server process runs per window; `phase` follows the client's state;
 * while completions are toggled off no inline completion request reaches the server, and no
 * `arbor/completionReady` re-triggers one, and no `arbor/cursor` is sent (see cursor.ts).
 */

import * as fs from "fs";
import * as os from "os";
import * as readline from "readline";
import type { Readable } from "stream";
import * as vscode from "vscode";
import {
  LanguageClient,
  type LanguageClientOptions,
  type ServerOptions,
  State,
} from "vscode-languageclient/node";
import { AcceptMeter } from "./acceptance";
import { CursorReporter } from "./cursor";
import { resolveExecutable } from "./executable";
import { ShownCompletion, withAcceptCommand } from "./feedback";
import {
  COMPLETION_READY_NOTIFICATION,
  CURSOR_NOTIFICATION,
  isCompletionReadyParams,
  isStatusParams,
  SHOWN_NOTIFICATION,
  STATUS_NOTIFICATION,
  type StatusParams,
} from "./protocol";
import { ReadyRetrigger, snapshotOf } from "./retrigger";
import { LineClassifier, RepeatLimiter } from "./serverlog";
import { contributedKeys, serverSettings, type JsonObject } from "./settings";
import type { ClientPhase } from "./status";
import { TraceChannel } from "./tracechannel";

/** A repeated server warning or error is written at most once per this many milliseconds. */
const REPEAT_WINDOW_MS = 30_000;

function eachLine(input: Readable, onLine: (line: string) => void): void {
  readline.createInterface({ input, crlfDelay: Infinity, terminal: false, historySize: 0 }).on("line", onLine);
}

function isExecutable(candidate: string): boolean {
  try {
    fs.accessSync(candidate, fs.constants.X_OK);
    return fs.statSync(candidate).isFile();
  } catch {
    return false;
  }
}

export class ArborClient implements vscode.Disposable {
  client: LanguageClient | undefined;
  phase: ClientPhase = "stopped";
  status: StatusParams | undefined;
  readonly shown = new ShownCompletion();
  readonly meter = new AcceptMeter();
  readonly trace: TraceChannel;
  private readonly ready = new ReadyRetrigger(() => {
    void vscode.commands.executeCommand("editor.action.inlineSuggest.trigger");
  });
  private readonly cursor = new CursorReporter<ReturnType<typeof setTimeout>>(
    (params) => {
      if (this.client?.isRunning()) {
        void this.client.sendNotification(CURSOR_NOTIFICATION, params);
      }
    },
    { set: (callback, ms) => setTimeout(callback, ms), clear: (handle) => clearTimeout(handle) },
  );
  private readonly watchers: vscode.Disposable[] = [];
  private readonly changed = new vscode.EventEmitter<void>();
  readonly onDidChange = this.changed.event;

  constructor(
    private readonly extension: vscode.ExtensionContext,
    readonly output: vscode.LogOutputChannel,
  ) {
    this.trace = new TraceChannel(output, () =>
      vscode.workspace.getConfiguration("arbor").get<string>("trace.server", "off"),
    );
  }

  get enabled(): boolean {
    return vscode.workspace.getConfiguration("arbor").get<boolean>("enable", true);
  }

  settings(): JsonObject {
    const config = vscode.workspace.getConfiguration("arbor");
    return serverSettings(contributedKeys(this.extension.extension.packageJSON), (key) => config.inspect(key));
  }

  async start(): Promise<void> {
    const config = vscode.workspace.getConfiguration("arbor");
    const folders = (vscode.workspace.workspaceFolders ?? []).map((folder) => folder.uri.fsPath);
    const resolution = resolveExecutable(config.get<string>("server.path", "arbor-ls"), {
      pathVariable: process.env.PATH ?? "",
      home: os.homedir(),
      workspaceFolders: folders,
      isExecutable,
    });
    if (!resolution.found) {
      this.setPhase("notFound");
      this.output.error(resolution.message);
      void vscode.window.showErrorMessage(resolution.message, "Open Settings").then((choice) => {
        if (choice === "Open Settings") {
          void vscode.commands.executeCommand("workbench.action.openSettings", "arbor.server.path");
        }
      });
      return;
    }
    const args = config.get<string[]>("server.args", []);
    this.output.info(`starting ${resolution.path} ${args.join(" ")}`);
    // No `transport`: with TransportKind.stdio the client would append `--stdio` to the arguments;
    // plain `arbor-ls` already serves LSP on stdin/stdout.
    const serverOptions: ServerOptions = { command: resolution.path, args, options: { cwd: folders[0] } };
    const client = new LanguageClient("arbor", "arbor-ls", serverOptions, this.clientOptions());
    this.client = client;
    client.onDidChangeState((event) => {
      this.setPhase(event.newState === State.Running ? "running" : event.newState === State.Starting ? "starting" : "stopped");
    });
    client.onNotification(STATUS_NOTIFICATION, (params: unknown) => {
      if (isStatusParams(params)) {
        this.status = params;
        this.changed.fire();
      }
    });
    client.onNotification(COMPLETION_READY_NOTIFICATION, (params: unknown) => {
      if (!isCompletionReadyParams(params) || !this.enabled) {
        return;
      }
      const editor = snapshotOf(vscode.window.activeTextEditor, (uri) => client.code2ProtocolConverter.asUri(uri));
      const verdict = this.ready.onReady(params, editor);
      this.output.debug(`${COMPLETION_READY_NOTIFICATION} ${params.uri}@${params.version}: ${verdict}`);
    });
    this.watchCursor(client);
    this.setPhase("starting");
    try {
      await client.start();
    } catch (error) {
      this.setPhase("stopped");
      this.output.error(`arbor-ls failed to start: ${String(error)}`);
      void vscode.window.showErrorMessage(`arbor-ls failed to start: ${String(error)}`);
    }
  }

  async stop(): Promise<void> {
    const client = this.client;
    this.client = undefined;
    this.cursor.cancel();
    this.watchers.splice(0).forEach((watcher) => watcher.dispose());
    this.status = undefined;
    if (client) {
      await client.stop().catch((error: unknown) => this.output.warn(`stopping arbor-ls: ${String(error)}`));
    }
    this.setPhase("stopped");
  }

  async restart(): Promise<void> {
    await this.stop();
    await this.start();
  }

  /** Sends the current settings to a running server (`workspace/didChangeConfiguration`). */
  async pushSettings(): Promise<void> {
    if (this.client?.isRunning()) {
      await this.client.sendNotification("workspace/didChangeConfiguration", { settings: this.settings() });
    }
  }

  notifyChanged(): void {
    this.changed.fire();
  }

  dispose(): void {
    void this.stop();
    this.changed.dispose();
    this.trace.dispose();
  }

  /** Report the active editor's resting cursor (`arbor/cursor`) while completions are on. */
  private watchCursor(client: LanguageClient): void {
    const report = (editor: vscode.TextEditor | undefined): void => {
      if (!this.enabled || editor?.document.uri.scheme !== "file") {
        this.cursor.cancel();
        return;
      }
      this.cursor.moved(snapshotOf(editor, (uri) => client.code2ProtocolConverter.asUri(uri)));
    };
    this.watchers.push(
      vscode.window.onDidChangeTextEditorSelection((event) => {
        if (event.textEditor === vscode.window.activeTextEditor) {
          report(event.textEditor);
        }
      }),
      vscode.window.onDidChangeActiveTextEditor(report),
    );
  }

  private setPhase(phase: ClientPhase): void {
    this.phase = phase;
    void vscode.commands.executeCommand("setContext", "arbor.active", phase === "running" && this.enabled);
    this.changed.fire();
  }

  private clientOptions(): LanguageClientOptions {
    return {
      documentSelector: [{ scheme: "file" }],
      initializationOptions: this.settings(),
      outputChannel: this.output,
      traceOutputChannel: this.trace,
      // stderr lines at the server's own levels (vscode-languageclient would log each as an error)
      stdioOptions: {
        stdout: (input, channel) => eachLine(input, (line) => channel.info(line)),
        stderr: (input, channel) => {
          const lines = new LineClassifier();
          const limiter = new RepeatLimiter(REPEAT_WINDOW_MS, () => Date.now());
          eachLine(input, (line) => {
            const entry = lines.classify(line);
            const text = limiter.admit(entry);
            if (text !== undefined) {
              channel[entry.level](text);
            }
          });
        },
      },
      middleware: {
        provideInlineCompletionItems: async (document, position, context, token, next) => {
          if (!this.enabled) {
            return undefined;
          }
          const result = await next(document, position, context, token);
          if (!result) {
            return result;
          }
          const items = Array.isArray(result) ? result : result.items;
          withAcceptCommand(items, document.uri.toString());
          const shown = this.shown.remember(document.uri.toString(), items);
          if (shown && this.client?.isRunning()) {
            void this.client.sendNotification(SHOWN_NOTIFICATION, shown);
          }
          return result;
        },
        provideCompletionItem: async (document, position, context, token, next) => {
          const listed = vscode.workspace.getConfiguration("arbor").get<boolean>("vscode.completionList", false);
          if (!this.enabled || !listed) {
            return undefined;
          }
          return next(document, position, context, token);
        },
        workspace: {
          configuration: (params, token, next) => {
            const wantsOurs = params.items.every((item) => item.section === undefined || item.section === "arbor");
            return wantsOurs ? params.items.map(() => this.settings()) : next(params, token);
          },
        },
      },
    };
  }
}
