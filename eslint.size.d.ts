import type { Linter } from 'eslint';

export declare const MAX_FUNCTION_LINES: number;
export declare const MAX_FILE_LINES: number;
export declare function sizeRules(): Linter.Config[];
