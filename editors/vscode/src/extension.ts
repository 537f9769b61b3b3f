import * as vscode from 'vscode';
import { LanguageClient, LanguageClientOptions, ServerOptions, TransportKind } from 'vscode-languageclient/node';
import { readSettings, serverLaunch } from './launch';

let client: LanguageClient | undefined;

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  const config = vscode.workspace.getConfiguration('docforge');
  const launch = serverLaunch(readSettings((key, fallback) => config.get(key, fallback)));
  const serverOptions: ServerOptions = {
    command: launch.command,
    args: launch.args,
    transport: TransportKind.stdio,
  };
  const clientOptions: LanguageClientOptions = {
    documentSelector: [
      { scheme: 'file', language: 'markdown' },
      { scheme: 'file', language: 'go' },
      { scheme: 'file', pattern: '**/*.toml' },
    ],
    synchronize: { fileEvents: vscode.workspace.createFileSystemWatcher('**/*') },
  };
  client = new LanguageClient('docforge', 'DocForge', serverOptions, clientOptions);
  context.subscriptions.push(
    vscode.workspace.onDidChangeConfiguration(async (e) => {
      if (e.affectsConfiguration('docforge.server') && client) {
        await client.stop();
        await activate(context);
      }
    }),
  );
  await client.start();
}

export async function deactivate(): Promise<void> {
  if (client) {
    await client.stop();
    client = undefined;
  }
}
