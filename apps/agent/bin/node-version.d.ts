// Types of node-version.js for the TypeScript tests (the root project does not compile JavaScript).
export declare const requiredNode: string;
export declare function nodeVersionProblem(program: string, found: string, required?: string): string | null;
export declare function refuseOldNode(program: string): void;
