// How the extension starts the server, as plain data: no `vscode` import, so the same code
// runs under node in tests (src/test/launch.test.ts) against the real binary.

export interface ServerSettings {
  /** The docforge binary. */
  path: string;
  /** Pass --no-ast. */
  noAst: boolean;
  /** Pass --no-precise. */
  noPrecise: boolean;
  /** The Go installation for standard-library navigation: '' discovers it, 'off' passes
   * --no-goroot, a path passes --goroot PATH. */
  goroot: string;
  /** The Go module cache for the required modules: '' discovers it, 'off' passes
   * --no-gomodcache, a path passes --gomodcache PATH. */
  gomodcache: string;
}

export interface LaunchOptions {
  command: string;
  args: string[];
}

/** Settings from a `get(key, default)` reader (VS Code's WorkspaceConfiguration.get). */
export function readSettings(get: <T>(key: string, fallback: T) => T): ServerSettings {
  return {
    path: get<string>('server.path', 'docforge') || 'docforge',
    noAst: get<boolean>('server.noAst', false),
    noPrecise: get<boolean>('server.noPrecise', false),
    goroot: get<string>('server.goroot', ''),
    gomodcache: get<string>('server.gomodcache', ''),
  };
}

/** `docforge lsp [--no-ast] [--no-precise] [--goroot DIR | --no-goroot] [--gomodcache DIR |
 * --no-gomodcache]` over stdio. */
export function serverLaunch(s: ServerSettings): LaunchOptions {
  const args = ['lsp'];
  if (s.noAst) {
    args.push('--no-ast');
  }
  if (s.noPrecise) {
    args.push('--no-precise');
  }
  if (s.goroot === 'off') {
    args.push('--no-goroot');
  } else if (s.goroot) {
    args.push('--goroot', s.goroot);
  }
  if (s.gomodcache === 'off') {
    args.push('--no-gomodcache');
  } else if (s.gomodcache) {
    args.push('--gomodcache', s.gomodcache);
  }
  return { command: s.path, args };
}
