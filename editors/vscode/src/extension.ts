/**
 * Entry point: creates the arbor-ls client, its status bar item and its commands.
 * Commands: toggle completions, show the last prompt's context, restart the server, show stats,
 * plus `arbor.accepted`, `arbor.acceptNextWord` / `arbor.acceptNextLine` (VS Code's own partial
 * accepts, measured) and `arbor.dismiss`, which report the user's verdict to the server.
 */

import * as vscode from "vscode";
import { ArborClient } from "./client";
import { ACCEPT_COMMAND, CLIENT_NAME, parseAcceptArguments } from "./feedback";
import { ACCEPTED_NOTIFICATION, CONTEXT_REQUEST, REJECTED_NOTIFICATION, STATS_REQUEST } from "./protocol";
import { statusView } from "./status";

let arbor: ArborClient | undefined;

/** Read-only `arbor-ls:/<name>.json` documents: stats and context open without a dirty buffer. */
class JsonViews implements vscode.TextDocumentContentProvider {
  static readonly scheme = "arbor-ls";
  private readonly contents = new Map<string, string>();
  private readonly changed = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this.changed.event;

  provideTextDocumentContent(uri: vscode.Uri): string {
    return this.contents.get(uri.path) ?? "";
  }

  async show(name: string, value: unknown): Promise<void> {
    const uri = vscode.Uri.from({ scheme: JsonViews.scheme, path: `/${name}.json` });
    this.contents.set(uri.path, `${JSON.stringify(value, null, 2)}\n`);
    this.changed.fire(uri);
    const document = await vscode.workspace.openTextDocument(uri);
    await vscode.window.showTextDocument(document, { preview: true, viewColumn: vscode.ViewColumn.Beside });
  }
}

const views = new JsonViews();

async function requestJson(client: ArborClient, method: string, name: string, empty: string): Promise<void> {
  if (!client.client?.isRunning()) {
    void vscode.window.showWarningMessage("arbor-ls is not running.");
    return;
  }
  try {
    const result: unknown = await client.client.sendRequest(method, {});
    if (result === null || result === undefined) {
      void vscode.window.showInformationMessage(empty);
      return;
    }
    await views.show(name, result);
  } catch (error) {
    void vscode.window.showErrorMessage(`${method} failed: ${String(error)}`);
  }
}

function createStatusBar(client: ArborClient): vscode.StatusBarItem {
  const item = vscode.window.createStatusBarItem("arbor.status", vscode.StatusBarAlignment.Right, 100);
  item.name = "arbor-ls";
  const render = (): void => {
    const view = statusView(client.phase, client.enabled, client.status);
    item.text = view.text;
    item.tooltip = view.tooltip;
    item.command = view.command;
    item.backgroundColor = view.background ? new vscode.ThemeColor(view.background) : undefined;
  };
  client.onDidChange(render);
  render();
  item.show();
  return item;
}

const PARTIAL_COMMANDS = {
  word: "editor.action.inlineSuggest.acceptNextWord",
  line: "editor.action.inlineSuggest.acceptNextLine",
} as const;

/** Runs VS Code's own partial accept and reports the characters it inserted. */
async function acceptPart(client: ArborClient, kind: "word" | "line"): Promise<void> {
  const editor = vscode.window.activeTextEditor;
  if (!editor) {
    await vscode.commands.executeCommand(PARTIAL_COMMANDS[kind]);
    return;
  }
  const uri = editor.document.uri.toString();
  client.meter.beginPartial(uri);
  let acceptedChars = 0;
  try {
    await vscode.commands.executeCommand(PARTIAL_COMMANDS[kind]);
  } finally {
    acceptedChars = client.meter.endPartial();
  }
  if (acceptedChars > 0 && client.client?.isRunning()) {
    await client.client.sendNotification(ACCEPTED_NOTIFICATION, {
      uri, kind, acceptedChars, shownChars: client.shown.shownChars(uri), client: CLIENT_NAME,
    });
  }
}

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  const output = vscode.window.createOutputChannel("arbor-ls", { log: true });
  const client = new ArborClient(context, output);
  arbor = client;
  context.subscriptions.push(
    output,
    client,
    createStatusBar(client),
    vscode.workspace.registerTextDocumentContentProvider(JsonViews.scheme, views),
  );

  context.subscriptions.push(
    vscode.commands.registerCommand("arbor.toggleCompletions", async () => {
      const config = vscode.workspace.getConfiguration("arbor");
      await config.update("enable", !client.enabled, vscode.ConfigurationTarget.Global);
    }),
    vscode.commands.registerCommand("arbor.showContext", () =>
      requestJson(client, CONTEXT_REQUEST, "last-context", "No completion has been requested yet."),
    ),
    vscode.commands.registerCommand("arbor.showStats", () =>
      requestJson(client, STATS_REQUEST, "stats", "The server returned no statistics."),
    ),
    vscode.commands.registerCommand("arbor.restartServer", () => client.restart()),
    vscode.commands.registerCommand(ACCEPT_COMMAND, async (...args: unknown[]) => {
      const { payload, inner } = parseAcceptArguments(args);
      const measured = payload ? client.meter.fullAccept(payload.uri) : undefined;
      const shownChars = payload ? client.shown.shownChars(payload.uri) : 0;
      client.shown.accepted();
      // A whole accept reached through the next-word command was reported as that partial accept.
      if (payload && !(measured && "partOfPartial" in measured) && client.client?.isRunning()) {
        const acceptedChars = measured && "chars" in measured ? measured.chars : payload.acceptedChars;
        await client.client.sendNotification(ACCEPTED_NOTIFICATION, {
          ...payload, acceptedChars, shownChars: shownChars || payload.shownChars,
        });
      }
      if (inner) {
        await vscode.commands.executeCommand(inner.command, ...(inner.arguments ?? []));
      }
    }),
    vscode.commands.registerCommand("arbor.acceptNextWord", () => acceptPart(client, "word")),
    vscode.commands.registerCommand("arbor.acceptNextLine", () => acceptPart(client, "line")),
    vscode.workspace.onDidChangeTextDocument((event) => {
      client.meter.changed(event.document.uri.toString(), event.document.version, event.contentChanges);
    }),
    vscode.commands.registerCommand("arbor.dismiss", async () => {
      const payload = client.shown.dismiss();
      await vscode.commands.executeCommand("editor.action.inlineSuggest.hide");
      if (payload && client.client?.isRunning()) {
        await client.client.sendNotification(REJECTED_NOTIFICATION, payload);
      }
    }),
    vscode.workspace.onDidChangeConfiguration(async (event) => {
      if (!event.affectsConfiguration("arbor")) {
        return;
      }
      if (event.affectsConfiguration("arbor.trace.server")) {
        client.trace.settingChanged();
        return;
      }
      if (event.affectsConfiguration("arbor.server")) {
        await client.restart();
        return;
      }
      if (event.affectsConfiguration("arbor.enable")) {
        await vscode.commands.executeCommand("setContext", "arbor.active", client.phase === "running" && client.enabled);
        client.notifyChanged();
      }
      await client.pushSettings();
    }),
  );
  await client.start();
}

export async function deactivate(): Promise<void> {
  await arbor?.stop();
  arbor = undefined;
}
