// Types of node-options.js for the TypeScript tests (the root project does not compile JavaScript).
export declare const tieringOptions: readonly string[];
export declare const tuneVariable: string;
export declare function daemonNodeOptions(v8Version: string): readonly string[];
export declare function relaunchOptions(process: {
  argv: readonly string[];
  execArgv: readonly string[];
  env: Readonly<Record<string, string | undefined>>;
  v8Version: string;
}): string[] | null;
